// tour.js - the guided tour's panel: step n of N, the question with its
// choice buttons, then (after a choice) whether the guess was right and what
// the lab shows, with Back, Next and Skip. The steps and their live claims
// are in tour_steps.js; the store owns the step number (it lives in the URL
// hash) and the guesses. User text reaches the DOM only through textContent.
import { STEPS, offSetup, revealAt, shownSteps } from '../teach/tour_steps.js';
import { setText, setHidden } from './dom.js';
import { h } from './markup.js';

// The panel's body, which index.html leaves out: only a student who starts
// the tour needs it.
function panelMarkup() {
  const button = (cls, text) => h('button', { type: 'button', class: cls }, text);
  return [
    h('div', { class: 'tour-top' }, h('p', { class: 'tour-count' }), button('quiet tour-skip', 'Skip the tour')),
    h('h2', { class: 'tour-title', id: 'tour-title', tabindex: '-1' }),
    h('p', { class: 'tour-intro' }),
    h('div', { class: 'tour-setup', hidden: '' }, h('p', { class: 'tour-setup-text' }), button('tour-reset', 'Set this step up again')),
    h('p', { class: 'tour-question', id: 'tour-question' }),
    h('div', { class: 'tour-choices', role: 'group', 'aria-labelledby': 'tour-question' }),
    h('p', { class: 'tour-wait' }, 'Choose first: the results stay covered until you do.'),
    h('div', { class: 'tour-reveal', 'aria-live': 'polite' }, h('p', { class: 'tour-outcome' }), h('div', { class: 'tour-lines' })),
    h('div', { class: 'tour-nav' }, button('tour-back', 'Back'), button('tour-next', 'Next')),
  ];
}

// While an answered step's panel is out of sight (its answer brought the
// chart into view, at 1280 px some 2,000 px below it), a strip at the
// window's top edge keeps the tour's place: back to the step, or on to the
// next, without scrolling back up for it.
function stripMarkup() {
  return h('div', { class: 'tour-strip', role: 'navigation', 'aria-label': 'Guided tour', hidden: '' },
    h('span', { class: 'tour-strip-count' }),
    h('button', { type: 'button', class: 'quiet tour-strip-back' }, 'Back to the step'),
    h('button', { type: 'button', class: 'tour-next tour-strip-next' }, 'Next'));
}

// root: the tour <section>; on: {guess(value), go(step), end()}.
export function createTour(root, on) {
  root.replaceChildren(...panelMarkup());
  const strip = stripMarkup();
  root.after(strip);
  const stripCount = strip.querySelector('.tour-strip-count');
  const stripNext = strip.querySelector('.tour-strip-next');
  const $ = (sel) => root.querySelector(sel);
  const counter = $('.tour-count');
  const title = $('.tour-title');
  const intro = $('.tour-intro');
  const setup = $('.tour-setup');
  const setupText = $('.tour-setup-text');
  const question = $('.tour-question');
  const choices = $('.tour-choices');
  const wait = $('.tour-wait');
  const reveal = $('.tour-reveal');
  const outcome = $('.tour-outcome');
  const lines = $('.tour-lines');
  const back = $('.tour-back');
  const next = $('.tour-next');
  let shown = 0;
  let current = 0;
  let revealed = 0; // the step whose answer was last brought into view
  let count = STEPS.length; // the steps shown with the last render's ctx

  back.addEventListener('click', () => on.go(current - 1));
  next.addEventListener('click', () => (current < count ? on.go(current + 1) : on.end(0)));
  let answeredHere = false; // the step shown has been answered
  let outOfSight = false; // the panel is above or below the window
  let follow = false; // an answer is scrolling what it talks about into view
  const placeStrip = () => setHidden(strip, root.hidden || !answeredHere || !outOfSight);
  if (typeof IntersectionObserver === 'function') {
    new IntersectionObserver(([e]) => {
      outOfSight = !e.isIntersecting;
      placeStrip();
      // A keyboard that answered follows the tour into the strip, rather
      // than staying on a choice the answer scrolled out of the window.
      if (follow && !strip.hidden && root.contains(document.activeElement)) stripNext.focus({ preventScroll: true });
      follow = false;
    }).observe(root);
  }
  const toPanel = () => requestAnimationFrame(() => root.scrollIntoView({ block: 'start' }));
  strip.querySelector('.tour-strip-back').addEventListener('click', () => { toPanel(); title.focus({ preventScroll: true }); });
  stripNext.addEventListener('click', () => { next.click(); if (!root.hidden) toPanel(); });
  $('.tour-skip').addEventListener('click', () => on.end(current));
  $('.tour-reset').addEventListener('click', () => on.go(current));

  // step: 1..N; guess: undefined until a choice is made; ctx: {result, form,
  // state, threshold(pairIndex), verdict(changes), gpt2 (whether GPT-2 is
  // open)} for the live text.
  function render({ step, guess, ctx }) {
    current = step;
    root.hidden = false;
    const s = STEPS[step - 1];
    const entered = shown !== step;
    shown = step;
    count = Math.max(step, shownSteps(ctx));
    setText(counter, `Guided tour · step ${step} of ${count}`);
    setText(title, s.title);
    setText(intro, s.intro(ctx));
    setText(question, s.question(ctx));
    // Said plainly when the lab no longer shows what this step set up.
    const changed = offSetup(step - 1, ctx.state, ctx.form);
    setup.hidden = changed.length === 0;
    if (changed.length) {
      setText(setupText, `The lab no longer shows this step as it was set up (${changed.join(', ')} changed), ` +
        'so the answer below is about what it shows now.');
    }
    if (entered) {
      choices.replaceChildren(...s.choices.map((c) => {
        const button = document.createElement('button');
        button.type = 'button';
        button.className = 'tour-choice';
        button.textContent = c.label;
        button.dataset.value = String(c.value);
        button.addEventListener('click', () => on.guess(c.value));
        return button;
      }));
    }
    for (const button of choices.children) {
      button.setAttribute('aria-pressed', String(button.dataset.value === String(guess)));
    }
    const answered = guess !== undefined;
    wait.hidden = answered;
    reveal.hidden = !answered;
    if (answered) {
      const live = s.answer(ctx);
      const label = s.choices.find((c) => c.value === guess).label;
      const verdict = live === null ? 'there is nothing to compare for this word'
        : live === guess ? 'right' : 'not this time';
      setText(outcome, `You chose “${label}”: ${verdict}.`);
      outcome.className = `tour-outcome ${live === null ? '' : live === guess ? 'is-right' : 'is-wrong'}`;
      const text = revealAt(step - 1, ctx);
      while (lines.children.length > text.length) lines.lastElementChild.remove();
      text.forEach((line, k) => {
        if (!lines.children[k]) lines.append(document.createElement('p'));
        setText(lines.children[k], line);
        lines.children[k].classList.toggle('claim', line.startsWith('np.allclose('));
      });
    }
    back.disabled = step === 1;
    const onward = step === count ? 'Finish' : 'Next';
    setText(next, onward);
    setText(stripCount, `Step ${step} of ${count}`); // (one line at 375 px)
    setText(stripNext, onward);
    answeredHere = answered;
    placeStrip();
    if (entered) {
      title.focus({ preventScroll: true });
      // Below 760 px the panel stands under the controls, some 1,400 px
      // down: a step started from the top of the page opens out of sight.
      const { top, bottom } = title.getBoundingClientRect();
      if (top < 0 || bottom > innerHeight) toPanel();
    }
    // Once answered, what the step talks about comes into view (the chart
    // when it points at the dashed line; else the verdicts), after the
    // render that uncovered it.
    if (answered && revealed !== step) {
      revealed = step;
      follow = true;
      const target = document.querySelector(s.show ?? '#verdicts');
      requestAnimationFrame(() => target?.scrollIntoView({ block: 'nearest' }));
    }
    if (!answered) revealed = 0;
  }

  function hide() {
    setHidden(root, true);
    setHidden(strip, true);
    shown = 0;
    revealed = 0;
  }

  return { render, hide };
}
