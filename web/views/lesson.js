// lesson.js (view) - "the lesson in three switches" beside a model trained
// here: the open model at the three settings of positions and mask, and the
// lesson's three points in words computed from them (teach/lesson.js).
// Loaded the first time a trained model is chosen. Its links are the page's
// own links (a hash), so following one is like following any link of the
// lab. Text reaches the DOM only through textContent.
import { lesson, QUESTIONS, probability } from '../teach/lesson.js';
import { sig } from '../app/format.js';
import { TRAINED_MODELS } from '../app/state.js';
import { createCheckpointView } from './checkpoint_panel.js';

// The checkpoint model's views, as page.js loads them together: its own
// view (views/checkpoint_panel.js: controls, tokens, answers) and this
// lesson, drawn with each result of a model trained here once it is open.
// The tour's steps on it are the page's own render (page.js renderTour),
// since a checkpoint goes through the page's one path. `options`:
// createCheckpointView's, and form.
export function createCheckpointViews(doc, options) {
  const { form, model } = options;
  const view = createCheckpointView(doc, options);
  const lesson = createLesson(doc, { form, model });
  return {
    ...view,
    render(result, state) {
      view.render(result, state);
      // the lesson's three runs go to the open model through the page's model (cached)
      if (result.checkpoint && TRAINED_MODELS.includes(state.model) && model.checkpointReady(state)) {
        lesson.render(state.model, state, (changes) => model.verdict({ ...state, ...changes }));
      } else {
        lesson.hide();
      }
    },
  };
}

// doc: the document; form: app/state.js's (for the links); model:
// app/model.js's (its lab runs the open checkpoint).
export function createLesson(doc, { form, model }) {
  const section = doc.createElement('section');
  section.id = 'lesson';
  section.className = 'lesson';
  section.setAttribute('aria-labelledby', 'lesson-title');
  section.hidden = true;
  doc.getElementById('verdicts').after(section);

  const el = (tag, text, className) => {
    const e = doc.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (className) e.className = className;
    return e;
  };
  const link = (text, state) => {
    const a = el('a', text);
    a.href = `#${form.toHash(state)}`;
    return a;
  };

  function table(rows, state) {
    const t = el('table', undefined, 'lesson-table');
    const head = el('tr');
    for (const h of ['switches', 'tokens True', 'cosine similarity of the means', 'answer after A', 'answer after B']) {
      const th = el('th', h);
      th.scope = 'col';
      head.append(th);
    }
    t.append(el('thead'), el('tbody'));
    t.tHead.append(head);
    for (const row of rows) {
      const f = row.facts;
      const tr = el('tr');
      const now = state.positions === row.changes.positions && state.causal === row.changes.causal;
      const th = el('th');
      th.scope = 'row';
      th.append(now ? el('span', `${row.label} (shown)`) : link(row.label, { ...state, ...row.changes }));
      const said = (x) => `${x.word} ${probability(x.probability)}${x.right === null ? '' : x.right ? ' ✓' : ' ✗'}`;
      tr.append(th, el('td', `${f.same} of ${f.paired}`), el('td', sig(f.similarity)), el('td', said(f.a)), el('td', said(f.b)));
      tr.dataset.key = row.key;
      t.tBodies[0].append(tr);
    }
    return t;
  }

  return {
    // model: the open trained model's name; state: the page's; run(changes):
    // the open model's result for the state with a few settings changed.
    render(model, state, run) {
      const { asked, rows, items } = lesson(model, state, run);
      section.hidden = false;
      const parts = [el('h2', 'The lesson in three switches')];
      parts[0].id = 'lesson-title';
      if (!asked) {
        const p = el('p', 'The models trained here answer a question about a statement. ');
        p.append(link(`Ask ${model} “${QUESTIONS.a}” and “${QUESTIONS.b}”`, { ...state, ...QUESTIONS, word: 6 }));
        parts.push(p);
      }
      parts.push(table(rows, state));
      const list = el('ol', undefined, 'lesson-points');
      for (const item of items) {
        const li = el('li');
        li.dataset.key = item.key;
        li.dataset.holds = String(item.holds);
        li.append(el('strong', item.title));
        for (const line of item.lines) li.append(el('p', line));
        if (item.needs) li.append(link(`Choose ${item.needs}`, form.withModel(state, item.needs)));
        list.append(li);
      }
      parts.push(list);
      section.replaceChildren(...parts);
    },
    hide() {
      section.hidden = true;
    },
  };
}
