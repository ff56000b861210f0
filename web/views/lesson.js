// lesson.js (view) - "the lesson in three switches" beside a model trained
// here: the open model at the three settings of positions and mask, and the
// lesson's three points in words computed from them (teach/lesson.js).
// Loaded the first time a trained model is chosen. Its links are the page's
// own links (a hash), so following one is like following any link of the
// lab. Text reaches the DOM only through textContent.
import { lesson, questionsFor, SWITCHES, asking, probability } from '../teach/lesson.js';
import { sig } from '../app/format.js';
import { modelOf } from '../app/models.js';
import { createCheckpointView } from './checkpoint_panel.js';
import { setText, setAttr, withRole } from './dom.js';
import { showFailure } from './controls.js';

// The checkpoint model's views, as page.js loads them together: its own
// view (views/checkpoint_panel.js: controls, tokens, answers) and this
// lesson, drawn with each result of a model trained here once it is open.
// The tour's steps on it are the page's own render (page.js renderTour),
// since a checkpoint goes through the page's one path. `options`:
// createCheckpointView's (sight and form among them, which this lesson is
// drawn and linked with too).
export function createCheckpointViews(doc, options) {
  const { form, model, sight } = options;
  const view = createCheckpointView(doc, options);
  const lesson = createLesson(doc, { form, model });
  // The lesson's three runs go to the open model through the page's model
  // (cached). Without positions the magnitude scales nothing (the core adds
  // no table), so those two runs are asked at magnitude 1: the same numbers
  // to the bit, and a slider step finds them cached instead of running both
  // again.
  const runOf = (state, changes) => ({ ...state, ...changes, ...(!changes.positions && { scale: 1 }) });
  const show = (state) => lesson.render(state.model, state, (changes) => model.verdict(runOf(state, changes)));
  // A keystroke or another model needs two or three runs the page has not
  // made (as long again as the verdicts' own): they wait until the
  // verdicts are painted, and only the last state asked for is shown.
  let waiting = null; // the state whose lesson waits for the next paint
  function later(state) {
    const first = waiting === null;
    waiting = state;
    lesson.busy(true);
    if (!first) return;
    afterPaint(() => {
      const next = waiting;
      waiting = null;
      // (not when another model was chosen meanwhile, or this one given up)
      if (next && model.checkpointReady(next)) {
        try {
          show(next);
        } catch (e) {
          showFailure(doc, 'The lesson could not be computed', e);
        }
      }
      lesson.busy(false);
    });
  }
  return {
    ...view,
    render(result, state) {
      view.render(result, state);
      if (result.checkpoint && modelOf(state.model).lesson === 'switches' && model.checkpointReady(state)) {
        sight.draw(lesson.section, () => {
          if (!model.checkpointReady(state)) return; // (given up since)
          if (SWITCHES.every((s) => model.cachedRun(runOf(state, { positions: s.positions, causal: s.causal })) !== undefined)) {
            waiting = null;
            show(state);
            lesson.busy(false);
          } else {
            later(state);
          }
        });
      } else {
        sight.now(lesson.section, () => {
          waiting = null;
          lesson.hide();
        });
      }
    },
  };
}

// Calls f once the page has had a frame to paint (the plain timer covers
// pages that get no frames: hidden tabs, off-screen iframes).
function afterPaint(f) {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    f();
  };
  requestAnimationFrame(() => setTimeout(once, 0));
  setTimeout(once, 100);
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

  // What a slider step or keystroke may change in place: each cell's,
  // line's and link's text and href, each point's verdict and number of
  // lines. Anything else (another model, a question asked or not, the row
  // shown) is built anew: rebuilding the whole section every step cost a layout of
  // its 50-odd elements per step, which the page's frame has no room for.
  let built = null; // {shape, intro, rows: [{th, link, tds}], items: [{li, title, lines, needs}]}
  const shapeOf = (model, asked, rows, items, state) => JSON.stringify([model, asked,
    rows.map((row) => state.positions === row.changes.positions && state.causal === row.changes.causal),
    items.map((item) => [item.key, item.needs ?? null])]);
  const setHref = (a, state) => setAttr(a, 'href', `#${form.toHash(state)}`);
  const said = (x) => `${x.word} ${probability(x.probability)}${x.right === null ? '' : x.right ? ' ✓' : ' ✗'}`;
  const cells = (f) => [f.paired ? `${f.same} of ${f.paired}` : 'none paired', sig(f.similarity), said(f.a), said(f.b)];

  // (its roles stated: in a narrow column later.css sets each row out as a
  // small card). After sentences that ask no question, what a model says
  // next is no answer (views/checkpoint_panel.js says why).
  const columnsOf = (asked) => ['switches', 'tokens True', 'cosine similarity of the means',
    ...['A', 'B'].map((s) => `${asked ? 'answer' : 'next token'} after ${s}`)];
  function table(rows, state, asked) {
    const t = withRole(el('table', undefined, 'lesson-table'), 'table');
    const head = withRole(el('tr'), 'row');
    const COLUMNS = columnsOf(asked);
    for (const h of COLUMNS) {
      const th = withRole(el('th', h), 'columnheader');
      th.scope = 'col';
      head.append(th);
    }
    t.append(withRole(el('thead'), 'rowgroup'), withRole(el('tbody'), 'rowgroup'));
    t.tHead.append(head);
    const refs = rows.map((row) => {
      const tr = withRole(el('tr'), 'row');
      const now = state.positions === row.changes.positions && state.causal === row.changes.causal;
      const th = withRole(el('th'), 'rowheader');
      th.scope = 'row';
      const anchor = now ? null : link(row.label, { ...state, ...row.changes });
      const name = anchor ?? el('span', `${row.label} (shown)`);
      th.append(name);
      const tds = cells(row.facts).map((text, k) => {
        const td = withRole(el('td', text), 'cell');
        td.dataset.label = COLUMNS[k + 1];
        return td;
      });
      tr.append(th, ...tds);
      tr.dataset.key = row.key;
      t.tBodies[0].append(tr);
      return { link: anchor, name, tds };
    });
    return { t, refs };
  }
  const askText = (model, state) => {
    const { a, b } = questionsFor(state);
    return `Ask ${model} “${a}” and “${b}”`;
  };
  function build(model, state, asked, rows, items, shape) {
    const parts = [el('h2', 'The lesson in three switches')];
    parts[0].id = 'lesson-title';
    let intro = null;
    if (!asked) {
      const p = el('p', 'The models trained here answer a question about a statement. ');
      intro = link(askText(model, state), asking(state));
      p.append(intro);
      parts.push(p);
    }
    const { t, refs } = table(rows, state, asked);
    parts.push(t);
    const list = el('ol', undefined, 'lesson-points');
    const points = items.map((item) => {
      const li = el('li');
      li.dataset.key = item.key;
      li.dataset.holds = String(item.holds);
      const title = el('strong', item.title);
      const lines = item.lines.map((line) => el('p', line));
      li.append(title, ...lines);
      const needs = item.needs ? link(`Choose ${item.needs}`, form.withModel(state, item.needs)) : null;
      if (needs) li.append(needs);
      list.append(li);
      return { li, title, lines, needs };
    });
    parts.push(list);
    section.replaceChildren(...parts);
    built = { shape, intro, rows: refs, items: points };
  }

  function update(state, rows, items) {
    if (built.intro) {
      setHref(built.intro, asking(state));
      setText(built.intro, askText(state.model, state)); // (the student's own statements give the questions)
    }
    rows.forEach((row, i) => {
      const { link: a, name, tds } = built.rows[i];
      if (a) setHref(a, { ...state, ...row.changes });
      // (the first row names the magnitude, which a slider step changes)
      setText(name, a ? row.label : `${row.label} (shown)`);
      cells(row.facts).forEach((text, k) => setText(tds[k], text));
    });
    items.forEach((item, i) => {
      const { li, title, lines, needs } = built.items[i];
      setAttr(li, 'data-holds', String(item.holds));
      setText(title, item.title);
      while (lines.length > item.lines.length) lines.pop().remove();
      while (lines.length < item.lines.length) {
        const p = el('p');
        li.insertBefore(p, (lines.at(-1) ?? title).nextSibling);
        lines.push(p);
      }
      item.lines.forEach((line, k) => setText(lines[k], line));
      if (needs) setHref(needs, form.withModel(state, item.needs));
    });
  }

  return {
    section,
    // model: the open trained model's name; state: the page's; run(changes):
    // the open model's result for the state with a few settings changed.
    render(model, state, run) {
      const { asked, rows, items } = lesson(model, state, run);
      if (section.hidden) section.hidden = false;
      const shape = shapeOf(model, asked, rows, items, state);
      if (built?.shape === shape) update(state, rows, items);
      else build(model, state, asked, rows, items, shape);
    },
    // While its runs wait (createCheckpointViews' later()), the figures
    // shown are the previous state's: said to assistive technology and to
    // the tests' settled().
    busy(busy) {
      setAttr(section, 'aria-busy', String(busy));
    },
    hide() {
      setAttr(section, 'aria-busy', 'false');
      if (!section.hidden) section.hidden = true;
    },
  };
}
