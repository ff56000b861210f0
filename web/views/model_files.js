// model_files.js - GPT-2 from the student's files, under the Model choice:
// a button for the files (or their folder) and drops onto the page, the
// memory the weights will take (said before they are read), a progress bar
// with a Cancel button while they are read, and the files kept on the
// device for the next visit, with a Forget button. Loaded the first time
// GPT-2 is chosen. A problem is said next to the button and changes nothing
// else: the model stays unopened, the rest of the lab as it was.
import { loaderFor, checkpointFiles, canKeep, keptFiles, keepFiles, forgetFiles } from '../app/checkpoints.js';
import { el, setText, setHidden, setAttr } from './dom.js';
import { grouped } from '../app/format.js';
import { awaitsFiles } from '../app/models.js';

// (a checkpoint of a few kilobytes said "0.0 MB")
const MB = (bytes) => (bytes < 1e6 ? `${Math.max(1, Math.round(bytes / 1e3))} kB` : `${(bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0)} MB`);
// The bar moves at most once a frame (a piece is read in a few
// milliseconds; drawing each would be wasted work), and so at least every
// 200 ms even when a busy machine stretches the read's tasks.
const PROGRESS_MS = 16;
// A read whose last sign of progress (its plan, once every header is read,
// or a piece of the weights) is this old is given up, and the student
// asked to choose the files again. Under a stress probe (files chosen
// while the kept copy opened, one core busy) a read stopped for good
// before its plan about once in 300 rounds, and the page said "Reading
// GPT-2's headers…" forever: a garbage collection had taken a chosen
// file's stream with its pending read, which then never answered
// (checkpoints.js now holds each reader while it reads, and reads a file
// again after STALLED_READ_MS without an answer). This stays for whatever
// else might hold a read. The headers of GPT-2 small
// take under a second, a piece a few milliseconds.
export const STALL_MS = 30000;

// What a student can do about the core's line for a file (shown above it),
// or '' where the line says it well enough: "data_offsets [0, 12865792]
// leave the data's 5997232 bytes" means a download cut short.
export function advice(message) {
  const file = /^([^:]+): /.exec(message)?.[1] ?? 'A file';
  if (/leave the data's \d+ bytes/.test(message)) {
    return `${file} is shorter than its own header says: its download was probably cut short. Download it again.`;
  }
  if (/: header of \d+ bytes; expected/.test(message) || /: \d+ bytes; expected at least 8/.test(message)) {
    return `${file} is not a safetensors file (a web page saved in its place?). Download it again from Hugging Face.`;
  }
  if (/not among the files given/.test(message)) {
    return 'These are not all of a GPT-2 checkpoint\'s files: choose config.json, model.safetensors, vocab.json and ' +
      'merges.txt together, or their folder.';
  }
  if (/^config\.json: /.test(message) && /no \w+; expected GPT-2's sizes|model_type|gelu_new/.test(message)) {
    return 'This config.json is not GPT-2\'s: the lab opens GPT-2-family models (model_type "gpt2").';
  }
  return '';
}

// The files of dropped folders (and their subfolders), with their path.
async function droppedFiles(entries) {
  const out = [];
  const walk = async (entry, path) => {
    if (entry.isFile) {
      const file = await new Promise((resolve, reject) => entry.file(resolve, reject));
      out.push({ file, path: `${path}${file.name}` });
    } else if (entry.isDirectory) {
      const reader = entry.createReader();
      for (;;) { // readEntries gives a directory's entries a batch at a time
        const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
        if (!batch.length) break;
        for (const e of batch) await walk(e, `${path}${entry.name}/`);
      }
    }
  };
  for (const entry of entries) await walk(entry, '');
  return out;
}

// Fills #model-files. `lab`: the page's lab; `rerender()`: draws the page
// again (once a model is open, settling the store first: store.js).
export function createModelFiles(doc, lab, rerender) {
  const container = doc.getElementById('model-files');
  const loader = loaderFor(lab);
  const input = el('input');
  Object.assign(input, { type: 'file', multiple: true, hidden: true, id: 'model-files-input' });
  const folderInput = el('input');
  Object.assign(folderInput, { type: 'file', multiple: true, hidden: true, id: 'model-files-folder' });
  folderInput.webkitdirectory = true;
  const pick = el('button', 'mf-pick', 'Choose GPT-2’s files…');
  const pickFolder = el('button', 'quiet mf-folder', 'or its folder');
  pick.type = pickFolder.type = 'button';
  const where = el('p', 'hint mf-where');
  where.append('Download ', el('code', '', 'config.json'), ', ', el('code', '', 'model.safetensors'), ', ',
    el('code', '', 'vocab.json'), ' and ', el('code', '', 'merges.txt'), ' from Hugging Face’s ',
    el('code', '', 'openai-community/gpt2'), ', then choose them here or drop them on the page. ' +
    'They are read in this browser: nothing leaves your device.');
  const status = el('p', 'mf-status');
  status.setAttribute('role', 'status');
  const progress = el('progress', 'mf-progress');
  progress.hidden = true;
  const cancel = el('button', 'mf-cancel', 'Cancel');
  cancel.type = 'button';
  cancel.hidden = true;
  const error = el('p', 'field-error mf-error');
  error.setAttribute('role', 'alert');
  error.hidden = true;
  const kept = el('p', 'mf-kept');
  kept.hidden = true;
  const keptText = el('span');
  const forget = el('button', 'quiet mf-forget', 'Forget');
  forget.type = 'button';
  kept.append(keptText, ' ', forget);
  const row = el('div', 'button-row');
  row.append(pick, pickFolder, input, folderInput, cancel);
  container.className = 'model-files';
  // plain words before the core's line, for the mistakes that come most often
  const errorAdvice = el('p', 'mf-advice');
  errorAdvice.hidden = true;
  container.replaceChildren(where, row, status, progress, errorAdvice, error, kept);
  pick.setAttribute('aria-describedby', 'model-files-error');
  error.id = 'model-files-error';

  let state = null;         // the page's lab state, as last drawn
  let files = null;         // what the student chose (or what was kept), for reopening
  let fromKept = false;     // whether `files` came from the kept copy
  let reading = null;       // the read in flight
  let askedKept = false;    // whether the kept copy was looked for (once a page)
  let keeping = Promise.resolve(); // the copy to the device in progress: Forget waits for it
  const isFilesModel = (s) => Boolean(s) && awaitsFiles(s);

  function showError(message) {
    setText(error, message);
    setHidden(error, !message);
    const plain = message ? advice(message) : '';
    setText(errorAdvice, plain);
    setHidden(errorAdvice, !plain);
  }

  async function showKept() {
    const now = await keptFiles();
    const size = now ? Object.values(now).reduce((sum, f) => sum + f.size, 0) : 0;
    setText(keptText, now ? `GPT-2’s files are kept on this device (${MB(size)}) for your next visit.` : '');
    setHidden(kept, !now);
  }

  // Reads `chosen` ({name: File}) into the lab. `keep`: copy them to the
  // device once they have opened (not when they came from there).
  function read(chosen, { keep }) {
    loader.release(); // other files chosen: the model open now goes first
    showError('');
    const started = { state };
    let shownAt = 0;
    let memory = '';
    // A stalled read fails as a refused file does (the handlers below)
    let movedAt = performance.now();
    let watch;
    const stalled = new Promise((_, reject) => {
      watch = setInterval(() => {
        if (reading !== started) clearInterval(watch); // (not a newer read's to release)
        else if (performance.now() - movedAt >= STALL_MS) {
          loader.release(); // (the read, if it ever moves again, is dropped)
          reject(new Error(`Reading GPT-2’s files stopped: nothing was read for ${STALL_MS / 1000} s. Choose them again.`));
        }
      }, 1000);
    });
    setText(status, `Reading GPT-2’s headers (${MB(Object.values(chosen).reduce((s, f) => s + f.size, 0))} of files)…`);
    let opening;
    try {
      opening = loader.open(state, {
        files: chosen,
        onProgress(p) {
          movedAt = performance.now();
          if (p.phase === 'planned') {
            memory = `its weights will take ${MB(p.bytesNeeded)} of memory here`;
            setText(status, `Reading GPT-2: ${memory}.`);
            setAttr(progress, 'max', '1');
            setAttr(progress, 'value', '0');
            setHidden(progress, false);
            setHidden(cancel, false);
            return;
          }
          const now = performance.now();
          if (now - shownAt < PROGRESS_MS && p.loaded < p.total) return;
          shownAt = now;
          setAttr(progress, 'max', String(p.total));
          setAttr(progress, 'value', String(p.loaded));
          // (the weights' bytes, not the files': a file may hold tensors that are not read, such as stored masks)
          setText(status, `Reading the weights, ${MB(p.loaded)} of ${MB(p.total)}: ${memory}.`);
        },
      });
    } catch (e) {
      opening = Promise.reject(e);
    }
    opening = Promise.race([opening, stalled]);
    reading = started;
    files = chosen;
    fromKept = !keep;
    setHidden(cancel, false);
    opening.then((ck) => {
      if (reading !== started) return;
      reading = null;
      const { n_layer: blocks, n_embd: width, parameters } = ck.info;
      setText(status, `GPT-2 is open: ${blocks} blocks, ${width} wide, ${parameters >= 1e6 ? `${(parameters / 1e6).toFixed(0)}M` : grouped(parameters)} parameters ` +
        `(${MB(ck.bytesNeeded)} of memory).`);
      setTimeout(rerender, 0); // the words above first: the first run is a task of its own
      if (keep && canKeep()) {
        setText(keptText, 'Keeping the files on this device…');
        setHidden(kept, false);
        keeping = keeping.then(() => keepFiles(chosen)).then(showKept, (e) => { showError(e.message); return showKept(); });
      }
    }, (e) => {
      if (reading !== started) return;
      reading = null;
      files = null; // not reopened by itself: the student chooses again
      setText(status, '');
      if (e?.name !== 'AbortError') showError(e.message);
    }).finally(() => {
      clearInterval(watch);
      if (reading) return;
      setHidden(progress, true);
      setHidden(cancel, true);
    });
  }

  function choose(list, path) {
    if (!isFilesModel(state)) return;
    read(checkpointFiles(list, path), { keep: true });
  }

  pick.addEventListener('click', () => input.click());
  pickFolder.addEventListener('click', () => folderInput.click());
  for (const i of [input, folderInput]) {
    i.addEventListener('change', () => {
      if (i.files.length) choose(i.files);
      i.value = ''; // the same files chosen again still count as a choice
    });
  }
  cancel.addEventListener('click', () => loader.release());
  forget.addEventListener('click', () => {
    keeping = keeping.then(forgetFiles).then(showKept, (e) => showError(e.message));
    if (fromKept) files = null;
  });
  return {
    // Files dropped on the page ({files, entries}: main.js takes them
    // while the event lasts, and chooses GPT-2 first if need be).
    drop({ files: list, entries }) {
      if (!entries.some((e) => e.isDirectory)) return choose(list);
      droppedFiles(entries).then((found) => {
        const paths = new Map(found.map(({ file, path }) => [file, path]));
        choose(found.map(({ file }) => file), (f) => paths.get(f));
      }, (err) => showError(err.message));
    },
    render(next) {
      state = next;
      const shown = isFilesModel(next);
      setHidden(container, !shown);
      loader.follow(next); // leaving GPT-2 gives its memory back (and stops a read)
      if (!shown) return;
      if (loader.ready(next) || reading) return;
      // GPT-2 chosen again, or a reload: open the files chosen before, or
      // those kept on the device, without asking.
      if (files) {
        read(files, { keep: false });
      } else if (!askedKept && canKeep()) {
        askedKept = true;
        keptFiles().then((found) => {
          showKept();
          if (found && isFilesModel(state) && !reading && !loader.ready(state) && !files) {
            setText(status, 'Opening GPT-2’s files kept on this device…');
            read(found, { keep: false });
          }
        });
      }
    },
  };
}
