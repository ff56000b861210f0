// tour_length.js - how many steps the guided tour has. The page needs the
// number from the start (links to a step, "Resume the tour (step 3 of 11)"),
// but the steps themselves, the page's largest module, load only when the
// tour is opened; tour_steps.js refuses to load if the two disagree.
export const TOUR_STEPS = 18;
// How many of them, the last ones, are shown only while GPT-2 is open
// (tour_steps.js checks).
export const GPT2_ONLY_STEPS = 1;
