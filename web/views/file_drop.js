// file_drop.js - files dropped anywhere on the lab go to the picker of the
// model that reads the student's files (app/models.js's FILES_MODEL, GPT-2),
// chosen first if another model is (else the browser would leave the lab to
// show the file); not where a teacher hid the model choice, nor over a
// course host's checkpoint folder. The entries are taken while the event
// lasts: the picker's code may still be loading.
import { chooseModel } from '../app/store.js';
import { modelOf, FILES_MODEL } from '../app/models.js';

// store: the page's; page: page.js's (its dropFiles); form: the state form.
export function takeDroppedFiles(doc, { store, page, form }) {
  const takesFiles = (e) => {
    const lab = store.get().lab;
    return e.dataTransfer?.types.includes('Files') && !lab.checkpoint &&
      (modelOf(lab.model).files === 'yours' || !doc.querySelector('[data-group="model"]').hidden);
  };
  doc.addEventListener('dragover', (e) => {
    if (!takesFiles(e)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
  });
  doc.addEventListener('drop', (e) => {
    if (!takesFiles(e)) return;
    e.preventDefault();
    const dt = e.dataTransfer;
    const dropped = { files: [...dt.files], entries: [...dt.items].map((item) => item.webkitGetAsEntry?.()).filter(Boolean) };
    if (modelOf(store.get().lab.model).files !== 'yours') store.dispatch(chooseModel, FILES_MODEL, form);
    page.dropFiles(dropped);
  });
}
