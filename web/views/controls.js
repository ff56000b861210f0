// controls.js - the controls show the store: typed fields (with the core's
// words when it refused what was typed), switches, scheme, slider, the word
// to follow, the notice about a link's unused parts, and a startup failure.
// Written only where something changed (dom.js), since this runs on every
// slider step.
import { setText, setHidden, setAttr, setChecked, el } from './dom.js';
import { sig, exponentText } from '../app/format.js';
import { wordsOf, excerpt, tokenName, divisorsOf } from '../app/state.js';
import { MODELS, CORE_MODELS, isCheckpointModel, modelOf } from '../app/models.js';
import { SCHEMES, choosable } from '../teach/schemes.js';
import { PRESETS } from '../teach/presets.js';

// Typed fields: state property -> input id (its message has id `${id}-error`).
export const TYPED = {
  a: 'sentence-a', b: 'sentence-b', offsetA: 'offset-a', offsetB: 'offset-b', scale: 'scale-text', dim: 'dim',
  seed: 'seed', rtol: 'rtol', atol: 'atol', layers: 'layers', weightStd: 'weight-std',
};
// The magnitude slider's range, as powers of ten (index.html's min and max).
const SLIDER = { min: -9, max: 3 };

// "1, 2, 3 or 6"
const orList = (items) => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`);

// How the page writes a limit: 1000000 as "1e6", as the fields take it.
const limitText = (x) => (x >= 1e5 ? exponentText(x) : String(x));

// One radio button per scheme of the teaching table ("none" is the
// positions switch) and per model of the models' table, built before the
// lab has started so that the page does not move when it has; render()
// shows the schemes the core has and the model takes.
export function buildChoices(doc) {
  const choice = (group, [name, { label, hint }]) => {
    const radio = el('input');
    Object.assign(radio, { type: 'radio', name: group, value: name });
    const made = el('label', 'choice');
    made.append(radio, el('span', 'choice-name', label), el('span', 'choice-hint', hint));
    return made;
  };
  doc.getElementById('scheme-choices').replaceChildren(...Object.entries(SCHEMES).filter(([name]) => name !== 'none')
    .map((entry) => choice('scheme', entry)));
  doc.getElementById('model-choices').replaceChildren(...MODELS.map((m) => choice('model', [m.name, m])));
  // A choice's hint shows once it is chosen; a screen reader hears each
  // choice's, chosen or not (the models' included), as its description and
  // not once more in its name.
  doc.querySelectorAll('.choice-hint').forEach((hint, k) => {
    hint.id = `choice-hint-${k}`;
    hint.ariaHidden = 'true';
    hint.parentElement.querySelector('input').setAttribute('aria-describedby', hint.id);
  });
}

export function createControls(doc, form) {
  const $ = (id) => doc.getElementById(id);
  // Hints name the core's limits.
  const scale = form.property('scale');
  setText($('scale-range'), `${limitText(scale.min)} to ${limitText(scale.max)}`);
  const heads = form.property('heads');

  // Only the head counts that split d evenly are offered (the core refuses
  // the others), rebuilt when d changes.
  function showHeads(lab) {
    const select = $('heads');
    const counts = divisorsOf(lab.dim, heads.min, heads.max);
    const key = counts.join(',');
    if (select.dataset.counts !== key) {
      select.replaceChildren(...counts.map((k) => {
        const option = doc.createElement('option');
        option.value = String(k);
        option.textContent = String(k);
        return option;
      }));
      select.dataset.counts = key;
    }
    // (outside the rebuild: d 8 and d 512 offer the same counts, and the hint names d)
    setText($('heads-hint'), counts.length === 1
      ? `Only 1 head: no number from 2 to ${heads.max} divides d ${lab.dim}.`
      : `d ${lab.dim} splits evenly into ${orList(counts)} heads.`);
    if (select.value !== String(lab.heads)) select.value = String(lab.heads);
  }

  function showTyped(name, lab, refused) {
    const input = $(TYPED[name]);
    const message = $(`${TYPED[name]}-error`);
    const bad = refused[name];
    // The person typing owns the field; others see the state's value.
    if (doc.activeElement !== input) {
      const text = bad ? bad.raw : String(lab[name]);
      if (input.value !== text) input.value = text;
    }
    setAttr(input, 'aria-invalid', String(Boolean(bad)));
    setHidden(message, !bad);
    if (bad) {
      message.replaceChildren();
      const strong = doc.createElement('strong');
      strong.textContent = bad.message;
      const kept = doc.createElement('span');
      kept.className = 'kept';
      kept.textContent = 'The results still show the last valid input.';
      message.append(strong, kept);
    }
  }

  function render({ lab, refused }) {
    for (const name of Object.keys(TYPED)) showTyped(name, lab, refused);
    showHeads(lab);
    setChecked($('positions'), lab.positions);
    setText($('positions-state'), lab.positions ? 'on' : 'off');
    setChecked($('causal'), lab.causal);
    setText($('causal-state'), lab.causal ? 'on' : 'off');
    doc.documentElement.classList.toggle('positions-off', !lab.positions);
    // (a checkpoint has its own position table instead: views/checkpoint_panel.js)
    const checkpoint = isCheckpointModel(lab.model);
    setText($('magnitude-what'), checkpoint ? '(a trained model’s position table: 1 is the table as trained)'
      : '(RoPE: its angle; ALiBi: its distance penalty)');
    const offered = choosable(form.schemes, lab.model);
    for (const radio of doc.querySelectorAll('input[name="scheme"]')) {
      setChecked(radio, radio.value === lab.scheme);
      setHidden(radio.parentElement, !offered.includes(radio.value));
    }
    for (const radio of doc.querySelectorAll('input[name="model"]')) setChecked(radio, radio.value === lab.model);
    const headModel = !CORE_MODELS[modelOf(lab.model).core].layers;
    if (doc.documentElement.classList.contains('model-head') !== headModel) doc.documentElement.classList.toggle('model-head', headModel);
    const slider = $('scale-slider');
    const exponent = lab.scale > 0 ? Math.log10(lab.scale) : SLIDER.min;
    const position = Math.min(SLIDER.max, Math.max(SLIDER.min, exponent));
    if (doc.activeElement !== slider && Math.abs(Number(slider.value) - position) > 1e-9) slider.value = String(position);
    setAttr(slider, 'aria-valuetext', sig(lab.scale));
    // The word to follow: one option per word of sentence A (a checkpoint's
    // tokens once its result is in: showWords).
    if (!checkpoint) showWords(lab, wordsOf(lab.a));
    const presets = $('presets');
    // The example chosen stays named while its sentences are there: the arrow
    // keys apply an option at once, and so step on through the examples
    // rather than from the first again.
    const chosen = PRESETS[presets.value];
    if (chosen && (chosen.a !== lab.a || chosen.b !== lab.b)) presets.value = '';
  }

  function showWords(lab, words) {
    const select = $('plot-word');
    const key = JSON.stringify(words);
    if (select.dataset.words !== key) {
      // Rewritten in place: a keystroke changes one word, not the list.
      while (select.options.length > words.length) select.lastElementChild.remove();
      words.forEach((word, k) => {
        const option = select.options[k] ?? select.appendChild(doc.createElement('option'));
        setAttr(option, 'value', String(k));
        setText(option, `${k + 1}. ${excerpt(tokenName(word), 40)}`);
      });
      select.dataset.words = key;
    }
    const word = String(Math.min(lab.word, words.length - 1));
    if (select.value !== word) select.value = word;
  }

  // The parts of a link that were not used, or nothing.
  function showNotice(items) {
    const list = $('notice-list');
    const key = JSON.stringify(items);
    if (list.dataset.items === key) return;
    list.dataset.items = key;
    list.replaceChildren(...items.map(({ label, value, reason }) => {
      const li = doc.createElement('li');
      li.textContent = `${label} (“${value}”): ${reason}`;
      return li;
    }));
    setHidden($('notice'), items.length === 0);
  }

  return { render, showNotice, showWords };
}

// What stopped the page (or a part of it), in the startup box.
export function showFailure(doc, what, error) {
  const box = doc.getElementById('startup');
  box.hidden = false;
  box.classList.add('failed');
  box.textContent = `${what}: ${error.message}`;
  console.error(error);
}
