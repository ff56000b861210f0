// checkpoint_panel.js - what a checkpoint model (the models trained here,
// GPT-2) has beyond the page's other views, loaded the first time one is
// chosen: in the controls, its position table in place of the random
// models' schemes and each model's line; in the
// results, both sentences as the model's tokens (with ids, and which were
// paired), exercise 2's figure and what the model says next. The verdicts,
// the chart, the blocks and the heatmaps are the page's own views.
import { tokenName } from '../app/state.js';
import { modelOf, awaitsFiles } from '../app/models.js';
import { sig, grouped } from '../app/format.js';
import { setText, setHidden, setChecked, setAttr, el } from './dom.js';
import { track } from '../browser/loading.js';
import { questionsFor, asking, rightAnswer, questionLike, probability } from '../teach/lesson.js';
import { NOUNS, VERBS } from '../teach/world.js';

// A model trained here to answer questions (its row's lesson) says its
// answer, one token; the others their five most likely next tokens.
const answers = (state) => modelOf(state.model).lesson === 'switches';

const quoted = (text) => `“${text}”`;

// model: app/model.js's; form: the page's state form (its links' hashes);
// store: the page's ({get, dispatch}); render: the page's one render; set:
// app/store.js's update of a few properties; showWords: the controls' word
// picker's; sight: the page's sections' (views/sight.js: the section is
// drawn when in sight or when the page pauses).
export function createCheckpointView(doc, { model, form, store, render, set, showWords, sight }) {
  const rerender = () => render(store.get());
  const latest = () => store.get().lab;
  const $ = (id) => doc.getElementById(id);

  // In the scheme group: the model's own table, the one choice it has.
  const scheme = el('label', 'choice ck-scheme');
  const radio = el('input');
  Object.assign(radio, { type: 'radio', name: 'scheme-checkpoint', value: 'learned', checked: true });
  const schemeName = el('span', 'choice-name');
  const schemeHint = el('span', 'choice-hint');
  scheme.append(radio, schemeName, schemeHint);
  const schemeChoices = $('scheme-choices');
  schemeChoices.append(scheme);

  // The leading-space switch, beside the tokens it changes.
  const spaceBox = el('div', 'ck-space');
  const spaceSwitch = el('label', 'switch');
  const space = el('input');
  Object.assign(space, { type: 'checkbox', id: 'space' });
  space.setAttribute('role', 'switch');
  space.setAttribute('aria-describedby', 'space-hint');
  const trackLine = el('span', 'switch-track');
  trackLine.setAttribute('aria-hidden', 'true');
  const spaceState = el('span', 'switch-state');
  spaceState.setAttribute('aria-hidden', 'true');
  spaceSwitch.append(space, trackLine, el('span', 'switch-label', 'Space before each sentence'), spaceState);
  const spaceHint = el('p', 'hint');
  spaceHint.id = 'space-hint';
  spaceBox.append(spaceSwitch, spaceHint);
  space.addEventListener('change', () => store.dispatch(set, { space: space.checked }));

  // In the results, after the verdicts: tokens, the figure, what it says.
  const section = el('section', 'ck-section');
  section.id = 'checkpoint';
  section.setAttribute('aria-labelledby', 'checkpoint-title');
  const title = el('h2', '', 'The model’s tokens and answer');
  title.id = 'checkpoint-title';
  const size = el('p', 'ck-size');
  const tokens = el('div', 'ck-tokens');
  const figure = el('p', 'ck-figure');
  const says = el('div', 'ck-says');
  section.append(title, size, tokens, spaceBox, figure, says);
  section.hidden = true;
  $('verdicts').after(section);

  let drawn = null;

  // One sentence's tokens: each piece (spaces shown as ␣) with its id;
  // those without a partner in the other sentence dimmed. A keystroke
  // changes a token or two: the chips there are rewritten in place, and
  // only a changed count adds or removes chips (rebuilt, both rows cost a
  // restyle and layout of some fifty elements per keystroke).
  const tokenRows = [];
  function tokenRow(k, label, list, paired) {
    if (!tokenRows[k]) {
      const row = el('p', 'ck-row');
      row.append(el('span', 'ck-label', label));
      tokenRows[k] = row;
      tokens.append(row);
    }
    const row = tokenRows[k];
    while (row.childElementCount - 1 > list.length) row.lastChild.remove();
    while (row.childElementCount - 1 < list.length) {
      const chip = el('span', 'ck-token');
      chip.append(el('span', 'ck-piece'), el('span', 'ck-id'));
      row.append(chip);
    }
    list.forEach((t, i) => {
      const chip = row.children[i + 1];
      const mate = paired(i);
      setAttr(chip, 'class', mate ? 'ck-token' : 'ck-token unpaired');
      setText(chip.firstChild, t.text.replace(/ /g, '␣'));
      setText(chip.lastChild, String(t.id));
      // (GPT-2's tokens are bytes: a character such as an emoji can end up in
      // several, none of them text on its own, which decode as U+FFFD)
      const bytes = t.text.includes('\uFFFD') ? '; � stands for bytes of a character split across tokens' : '';
      setAttr(chip, 'title', (mate ? `token ${i} of this sentence, id ${t.id}` : `token ${i}, id ${t.id}: no partner in the other sentence`) + bytes);
    });
  }

  // What the model says after each sentence: a trained model's answer (the
  // most likely next token), GPT-2's five most likely next tokens. Built
  // when the tokens said change; a slider step rewrites the probabilities.
  // A model trained here learned only to answer a question of its world
  // after a statement (docs/models.md): after any other sentence its next
  // token is not an answer (nothing in training asked for one there; after
  // the lab's own pair gpt says each sentence's last word again), so the
  // panel says so and links to the questions rather than call it one.
  let askLink = null;
  function saysRows(result, state) {
    const trained = answers(state);
    const wants = [rightAnswer(state.a), rightAnswer(state.b)];
    const asked = wants.every((w) => w !== null);
    // a question, but not one of its world ("who eats ?")
    const foreign = !asked && (questionLike(state.a) || questionLike(state.b));
    const head = el('p', 'ck-says-head', !trained ? 'Its five most likely next tokens'
      : asked ? 'Its answer (the most likely next token)'
        : foreign ? 'Its next token (not a question it was trained on)' : 'Its next token (these sentences ask it nothing)');
    const rows = [['A', result.next_a, wants[0]], ['B', result.next_b, wants[1]]].map(([name, next, want]) => {
      const row = el('p', 'ck-row');
      row.append(el('span', 'ck-label', `after ${name}`));
      for (const t of trained ? next.slice(0, 1) : next) {
        const chip = el('span', 'ck-next');
        const piece = t.text.trim() === '' ? tokenName(t.text) : t.text.trim();
        chip.append(el('span', 'ck-piece', piece), el('span', 'ck-prob'));
        row.append(chip);
        if (trained && want !== null) {
          const right = piece === want;
          const mark = el('span', 'ck-mark', right ? '✓ right' : `✗ (right: ${want})`);
          setAttr(mark, 'title', `${quoted(sentenceOf(state, name))} asks for ${want}`);
          row.append(mark);
        }
      }
      return row;
    });
    askLink = null;
    if (!trained || asked) return [head, ...rows];
    const questions = questionsFor(state); // (the student's own statements, when they are of its world)
    const hint = el('p', 'hint ck-ask', `${state.model} was trained to answer a question after a statement: ` +
      `${quoted(questions.a)} asks for ${rightAnswer(questions.a)}. ` +
      (foreign ? `Its statements use ${NOUNS.length} nouns (${NOUNS.slice(0, 4).join(', ')}, …) and ${VERBS.length} verbs (${VERBS.map(([v]) => v).join(', ')}), ` +
        `and a question repeats the verb (${quoted('who bites ?')}) or asks ${quoted('who is bitten ?')}. What it says after another question is not an answer. `
        : 'What it says after a sentence with no such question is not an answer. '));
    askLink = el('a', '', `Ask it ${quoted(questions.a)} and ${quoted(questions.b)}`);
    hint.append(askLink);
    return [head, ...rows, hint];
  }
  const sentenceOf = (state, name) => (name === 'A' ? state.a : state.b);

  function saysProbabilities(result, state) {
    const shown = answers(state) ? 1 : 5;
    const probabilities = [...result.next_a.slice(0, shown), ...result.next_b.slice(0, shown)].map((t) => `p ${probability(t.probability)}`);
    says.querySelectorAll('.ck-prob').forEach((node, k) => setText(node, probabilities[k]));
  }

  // The story line over the verdicts for a checkpoint, said from the live
  // result: which of positions and mask is there to tell the order, and
  // whether the model's outputs tell the sentences apart.
  function story(result, state) {
    const told = result.mean.allclose ? 'its outputs do not tell the two sentences apart (the mean is True)'
      : 'its outputs tell the two sentences apart (the mean is False)';
    const table = result.checkpoint.trained_positions;
    const mask = state.causal ? 'the causal mask lets each token see only itself and the tokens before it'
      : 'there is no mask: every token sees every token';
    if (state.positions && table) {
      return `Positional information is on (its learned position table at magnitude ${sig(state.scale)}), and ${mask}: ${told}.`;
    }
    const none = state.positions ? 'This model was trained without positions: its position table is all zeros, so ' +
      'switching positions on adds nothing' : 'Positional information is off';
    return `${none}, and ${mask}. ${state.causal ? 'The mask alone is left to carry the order' : 'Nothing is left to carry the order'}: ${told}.`;
  }

  return {
    // Opens the state's checkpoint (app/checkpoint_model.js's read), and
    // renders the page again when it is in. Returns why it could not be
    // opened, or null while it is being read.
    read(state) {
      const failed = model.ck?.failure(state);
      if (failed) return failed;
      // GPT-2 from the student's files is opened by views/model_files.js, which says how it goes
      // (the model's part for checkpoints is loaded even so, to see GPT-2 once it is open)
      const files = awaitsFiles(state);
      if (!files || !model.ck) {
        track(model.checkpoints().then((ck) => {
          ck.latest = latest; // (so that its chart gives way when the page moves on)
          return files || ck.read(state);
        })).then((read) => read && store.settle()); // (its tokens may move the followed word: store.js)
      }
      if (files) return 'GPT-2: its verdicts come once its files are read';
      return null;
    },

    // The story line for a checkpoint's result (undefined for the others'):
    // the verdicts view shows it in place of its own.
    story: (result, state) => (result.checkpoint ? story(result, state) : undefined),

    // The controls for the state's model: shown only for a checkpoint.
    controls(state) {
      model.ck?.loader.follow(state); // a checkpoint left behind gives its memory back
      const trained = modelOf(state.model).defaults;
      setHidden(scheme, !trained);
      // the random models' schemes give way to the checkpoint's table (later.css)
      schemeChoices.classList.toggle('ck-only', Boolean(trained));
      if (!trained) return;
      setText(schemeName, trained.positions ? 'Learned position table' : 'No position table');
      setText(schemeHint, trained.positions
        ? 'the position vectors it learned, added to each token’s vector; the magnitude scales them (1 = as trained)'
        : 'it was trained without positions: its table is all zeros, so switching positions on adds nothing');
      setChecked(space, state.space);
      setText(spaceState, state.space ? 'on' : 'off');
    },

    // A result of any model: a checkpoint's tokens, figure and answers
    // drawn (and its tokens offered to follow), nothing for the others'.
    render(result, state) {
      if (!result.checkpoint) {
        sight.now(section, () => setHidden(section, true));
        return;
      }
      setHidden(section, false);
      showWords(state, result.pairs.map((p) => p.word));
      // the first word's tokens with and without a space before it, asked
      // of the core now: a draw that waits must not tokenize in the middle
      // of a run in steps on the checkpoint's lab, which that would end
      const contrast = model.ck.spaceContrast(state);
      sight.draw(section, () => drawSection(result, state, contrast));
    },
  };

  // The section's tokens, figure and answers (drawing only: no core call).
  function drawSection(result, state, contrast) {
    if (drawn?.result === result && drawn.contrast === contrast) return;
    const ck = result.checkpoint;
    // (the line changes only with the model: its number took a tenth of a millisecond a step)
    const sizeKey = JSON.stringify([state.model, ck.n_layer, ck.n_head, ck.n_embd, ck.parameters, ck.trained_positions, ck.trained_causal]);
    if (drawn?.sizeKey !== sizeKey) {
      setText(size, `${state.model}: ${ck.n_layer} blocks of ${ck.n_head} heads, ${ck.n_embd} wide, ` +
        `${grouped(ck.parameters)} parameters; trained ${ck.trained_positions ? 'with' : 'without'} positions, ` +
        `${ck.trained_causal ? 'with' : 'without'} the causal mask.`);
    }
    // The tokens change with the words, not with a slider step: rebuilt only then.
    const tokenKey = JSON.stringify([result.tokens_a, result.tokens_b, result.pairs.map((p) => p.index_b)]);
    if (drawn?.tokenKey !== tokenKey) {
      const pairedB = new Set(result.pairs.map((p) => p.index_b));
      tokenRow(0, 'A', result.tokens_a, (i) => result.pairs[i]?.index_b !== null);
      tokenRow(1, 'B', result.tokens_b, (j) => pairedB.has(j));
    }
    // exercise 2's figure, in the course's words
    if (!figure.firstChild) {
      figure.append(el('span', 'ck-figure-name', 'cosine similarity of the mean last hidden state'), el('span', 'ck-figure-value'));
    }
    setText(figure.lastChild, sig(result.mean_cosine_similarity));
    // (a trained model shows its first token only: the order of the others, which a slider step may change, is not shown)
    const shown = answers(state) ? 1 : 5;
    const saysKey = JSON.stringify([state.model, rightAnswer(state.a), rightAnswer(state.b), questionLike(state.a) || questionLike(state.b),
      questionsFor(state),
      ...[result.next_a, result.next_b].map((next) => next.slice(0, shown).map((t) => t.id))]);
    if (drawn?.saysKey !== saysKey) says.replaceChildren(...saysRows(result, state));
    // (the link keeps the page's other settings: a slider step changes its href, not the rows)
    if (askLink) setAttr(askLink, 'href', `#${form.toHash(asking(state))}`);
    saysProbabilities(result, state);
    drawn = { result, contrast, tokenKey, saysKey, sizeKey };
    if (contrast) {
      const id = (list) => list.map((t) => t.id).join(' ');
      setText(spaceHint, `Mid-sentence a word is a token with its space: ${quoted(` ${contrast.word}`)} is ` +
        `${id(contrast.spaced)}, ${quoted(contrast.word)} is ${id(contrast.bare)}. On, the first word gets the token it has anywhere else.`);
    }
  }
}

