// sight.js - what is out of sight is drawn when the page pauses. Every
// figure a slider step changes is text the browser must shape and lay out
// again, and every panel it redraws is script in the step's frame: for
// rows and sections nobody can see, that is the frame's budget spent on
// nothing (on a model trained here, the lesson, answers and blocks below
// the fold were half of a slider step's script and most of its layout).
//
// A draw for a target in sight, or within `margin` of it (for scrolling),
// is made at once. One for a target out of sight waits until the renders
// pause for `quietMs` (a drag of the slider renders every frame: drawing
// between two frames would only move the cost into the next one), or until
// it scrolls into sight (that one alone); only the last draw asked for a
// target is made. Meanwhile `busyOf(target)` says aria-busy, which the tests' settled
// condition waits for. A target not laid out (hidden) or not yet placed by
// the observer is drawn at once, and so is everything without
// IntersectionObserver. Content waiting is content in the accessibility
// tree with last figures, marked busy: unlike CSS content-visibility,
// which Chromium leaves out of that tree.
import { setAttr } from './dom.js';

export function createSight({ margin = '200px 0px', quietMs = 120, busyOf = (target) => target } = {}) {
  const out = new Set(); // targets the observer last saw out of sight
  const watched = new WeakSet();
  const waiting = new Map(); // target -> its last draw
  let timer = null;
  const observer = typeof IntersectionObserver === 'function' ? new IntersectionObserver((entries) => {
    for (const e of entries) {
      // A hidden target has no box: nothing says where it will be once
      // shown, and the observer, which reports only changes, would say
      // nothing more if it is then shown out of sight: it is asked again.
      const unplaced = e.boundingClientRect.width === 0 && e.boundingClientRect.height === 0;
      if (unplaced) watched.delete(e.target);
      if (e.isIntersecting || unplaced) out.delete(e.target);
      else out.add(e.target);
    }
    // (the others keep waiting for the pause)
    for (const e of entries) if (waiting.has(e.target) && !out.has(e.target)) now(e.target, waiting.get(e.target));
    if (!waiting.size) settle();
  }, { rootMargin: margin }) : null;

  // Draws now or later, as above. Call settle() after a render's draws.
  function draw(target, fn) {
    if (observer && !watched.has(target)) {
      watched.add(target);
      observer.unobserve(target); // (observed anew: its first report comes again)
      observer.observe(target);
    }
    if (observer && out.has(target)) {
      waiting.set(target, fn);
      setAttr(busyOf(target), 'aria-busy', 'true');
    } else {
      now(target, fn);
    }
  }

  // Draws at once wherever the target is (what the student follows).
  function now(target, fn) {
    release(target); // (before the draw: a draw may mark its own section busy, for work of its own)
    fn();
  }

  // The target's draw no longer waits: not busy, unless another target
  // marked busy on the same element still waits.
  function release(target) {
    if (waiting.delete(target) && ![...waiting.keys()].some((t) => busyOf(t) === busyOf(target))) {
      setAttr(busyOf(target), 'aria-busy', 'false');
    }
  }

  // A target removed from the page: its waiting draw is dropped.
  function forget(target) {
    release(target);
    out.delete(target);
    watched.delete(target);
    observer?.unobserve(target);
  }

  // After a render's draws: those waiting are made when the renders pause.
  function settle() {
    clearTimeout(timer);
    timer = waiting.size ? setTimeout(flush, quietMs) : null;
  }

  // Every waiting draw, now (a target in sight, a pause, a print).
  function flush() {
    clearTimeout(timer);
    timer = null;
    const draws = [...waiting];
    waiting.clear();
    for (const [target] of draws) setAttr(busyOf(target), 'aria-busy', 'false');
    for (const [, f] of draws) f();
  }

  return { draw, now, settle, flush, forget };
}
