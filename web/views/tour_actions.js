// tour_actions.js - the guided tour's steps, loaded on demand, and what its
// panel's buttons do to the store.
import * as update from '../app/store.js';
import { track } from '../browser/loading.js';
import { showFailure } from './controls.js';

// The tour panel's buttons; the step is kept for a later "Resume".
export function tourActionsFor({ store, form, tourMemory, tour }) {
  return {
    guess: (value) => store.dispatch(update.guess, value),
    async go(n) {
      let steps;
      try {
        steps = await tour.load();
      } catch (e) {
        showFailure(document, 'The tour could not be loaded', e);
        return;
      }
      store.dispatch(update.goTour, n, { form, steps });
      tourMemory.store(store.get().tour.step);
    },
    end(resumeAt) {
      tourMemory.store(resumeAt); // before the render that shows "Resume"
      store.dispatch(update.endTour, resumeAt);
      document.getElementById('tour-start').focus();
    },
  };
}

// The tour's steps (their text and live claims, the page's largest module)
// load when a student starts the tour or a link opens one of its steps.
export function tourSteps() {
  let steps = null;
  let loading = null;
  return {
    load: () => (loading ??= track(import('../teach/tour_steps.js')).then((m) => { steps = m.STEPS; return steps; })),
    loaded: () => steps,
  };
}
export const linksTour = (hash) => new URLSearchParams(hash.replace(/^#/, '')).has('tour');
