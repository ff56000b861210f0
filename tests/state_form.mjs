// The page's state form as the page makes it: from the built core's own
// option table (lab.options), so tests see the same limits and defaults.
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const { createLab } = await import(`${ROOT}build/site/poslab.js`);
const { createStateForm } = await import(`${ROOT}web/app/state.js`);
const { STEPS } = await import(`${ROOT}web/teach/tour_steps.js`);

// {lab, form}: a fresh lab and the page's form made from its table.
export async function stateForm() {
  const lab = await createLab();
  return { lab, form: createStateForm(lab.options, { tourSteps: STEPS.length }) };
}
