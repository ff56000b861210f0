// checkpoint_panel.js - the view of a checkpoint model (the models trained
// here, GPT-2): both sentences' tokens with their ids and which were
// paired, each pair's verdict, what the model says next, and exercise 2's
// figure. Loaded the first time a checkpoint model is chosen; it opens the
// model's folder through the loader and draws when it is in.
import { loaderFor } from '../app/checkpoints.js';
import { TRAINED_MODELS } from '../app/state.js';
import { sig } from '../app/format.js';
import { track } from '../browser/loading.js';

export function createCheckpointPanel(doc, { lab, form, rerender }) {
  const section = doc.createElement('section');
  section.id = 'checkpoint';
  section.setAttribute('aria-live', 'polite');
  doc.getElementById('verdicts').before(section);
  const loader = loaderFor(lab);
  let failed = null; // {key, message}

  const el = (tag, text, className) => {
    const e = doc.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (className) e.className = className;
    return e;
  };
  const tokenList = (label, tokens, pairedWith) => {
    const p = el('p', `${label}: `, 'ck-tokens');
    tokens.forEach((t, i) => {
      const span = el('span', `${JSON.stringify(t.text)} ${t.id}`, pairedWith(i) === null ? 'ck-token unpaired' : 'ck-token');
      p.append(span, i + 1 < tokens.length ? ' | ' : '');
    });
    return p;
  };

  function draw(result, state) {
    const pairedB = new Set(result.pairs.map((p) => p.index_b).filter((j) => j !== null));
    const rows = result.pairs.map((p) => el('li', p.index_b === null ? `${JSON.stringify(p.word)} (A ${p.index_a}): no partner in B`
      : `${JSON.stringify(p.word)} (A ${p.index_a}, B ${p.index_b}): ${p.allclose ? 'True' : 'False'}, cosine distance ${sig(p.cosine_distance)}`));
    const says = (name, next) => (TRAINED_MODELS.includes(state.model)
      ? el('p', `answer after ${name}: ${next[0].text.trim()} (probability ${sig(next[0].probability)})`, 'ck-answer')
      : el('p', `next after ${name}: ${next.map((t) => `${JSON.stringify(t.text)} ${sig(t.probability)}`).join(', ')}`, 'ck-answer'));
    section.replaceChildren(
      el('h2', `Model ${state.model}: ${result.checkpoint.n_layer} blocks, ${result.checkpoint.n_embd} wide`),
      tokenList('tokens A', result.tokens_a, (i) => result.pairs[i]?.index_b ?? null),
      tokenList('tokens B', result.tokens_b, (j) => (pairedB.has(j) ? j : null)),
      el('ul', undefined, 'ck-pairs'),
      el('p', `mean: ${result.mean.allclose ? 'True' : 'False'}`, 'ck-mean'),
      el('p', `cosine similarity of the mean last hidden state: ${sig(result.mean_cosine_similarity)}`, 'ck-figure'),
      says('A', result.next_a), says('B', result.next_b),
    );
    section.querySelector('.ck-pairs').append(...rows);
  }

  return {
    // The open checkpoint for the state, or null while it loads (the tour
    // and the lesson run it themselves).
    ready: (state) => loader.ready(state),
    // Draws the state's checkpoint model, opening it first if needed.
    render(state) {
      section.hidden = false;
      const ck = loader.ready(state);
      if (!ck && state.model === 'gpt2' && !state.checkpoint) { // opened by views/model_files.js, which says how it goes
        section.hidden = true;
        return;
      }
      if (!ck) {
        const key = state.model;
        if (failed?.key === key) return;
        section.replaceChildren(el('p', `Reading model ${key}…`));
        let opening;
        try {
          opening = loader.open(state);
        } catch (e) { // GPT-2 with no files chosen yet
          opening = Promise.reject(e);
        }
        track(opening.then(rerender, (e) => {
          if (e?.name === 'AbortError') return;
          failed = { key, message: e.message };
          section.replaceChildren(el('p', `Model ${key} could not be opened: ${e.message}`, 'error'));
        }));
        return;
      }
      try {
        draw(lab.run(form.configOf(state)), state);
      } catch (e) {
        section.replaceChildren(el('p', e.message, 'error'));
      }
    },
    // Gives the checkpoint back when the state leaves it.
    follow(state) {
      loader.follow(state);
      if (!section.hidden && !loader.ready(state) && !TRAINED_MODELS.includes(state.model) && state.model !== 'gpt2') section.hidden = true;
    },
  };
}
