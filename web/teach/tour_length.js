// tour_length.js - how many steps the guided tour has. The page needs the
// number from the start (links to a step, "Resume the tour (step N of M)"),
// but the steps themselves, the page's largest module, load only when the
// tour is opened: tour_steps.js refuses to load if the two disagree, and
// tests/node/teaching.test.mjs loads it.
export const TOUR_STEPS = 18;
// How many of them, the last ones, are shown only while their model is open
// (app/models.js's lesson 'tour-step'; tour_steps.js checks).
export const GPT2_ONLY_STEPS = 1;
