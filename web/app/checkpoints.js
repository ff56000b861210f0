// checkpoints.js - the checkpoint models behind the page, with no DOM: which
// folder a state's model comes from, and one open checkpoint at a time.
// A checkpoint holds its weights in a WebAssembly instance of its own
// (poslab.js's openCheckpoint), and GPT-2's take half a gigabyte, so the
// loader keeps only the model the state names: switching away disposes it,
// which gives its memory back whole.
import { isCheckpointModel, modelOf } from './models.js';

// Where the state's model is read from: {key, url} for a folder on the
// site (a trained model, or GPT-2 from a course host's folder), {key} for
// GPT-2 from the student's files, or null for the head and the transformer.
// `base`: the page's URL, which the folders are relative to; a folder that
// resolves to another origin is refused (state.js already refuses such text
// in a link; this guards every other way in).
export function checkpointSource(state, base) {
  if (!isCheckpointModel(state.model)) return null;
  if (modelOf(state.model).files === 'site') {
    return { key: state.model, url: new URL(`models/${state.model}/`, base).href };
  }
  if (!state.checkpoint) return { key: 'gpt2:files' };
  const url = new URL(state.checkpoint, base);
  if (url.origin !== new URL(base).origin) throw new Error(`checkpoint: ${state.checkpoint} is not on this site; allowed: a folder on this site`);
  return { key: `gpt2:${url.href}`, url: url.href };
}

// The pieces the page hands the core: each is converted in one call on the
// page's thread, and a quarter megabyte keeps that call a few milliseconds
// even in a browser's first-tier code on a busy machine.
const PAGE_CHUNK_BYTES = 1 << 18;

export class CheckpointLoader {
  // `lab`: the page's lab (its run({model: 'checkpoint'}) runs the one
  // opened last, which is the one this loader holds).
  constructor(lab, { base = globalThis.location?.href } = {}) {
    this.lab = lab;
    this.base = base;
    this.held = null; // {key, promise, controller, checkpoint}
  }

  // The open checkpoint for `state`, if it is loaded (else null).
  ready(state) {
    const source = checkpointSource(state, this.base);
    return source && this.held?.key === source.key ? this.held.checkpoint ?? null : null;
  }

  // Resolves to the open checkpoint for the state's model, opening it the
  // first time (`files` for GPT-2 from the student's files); a second call
  // for the same model shares the first's load. Opening another model
  // first cancels the load in flight and disposes the one held.
  // `onProgress` is openCheckpoint's.
  open(state, { files, onProgress } = {}) {
    const source = checkpointSource(state, this.base);
    if (!source) throw new Error(`model: ${state.model} is not a checkpoint`);
    if (this.held?.key === source.key) return this.held.promise;
    if (!source.url && !files) throw new Error('GPT-2: choose its files first (config.json, model.safetensors, vocab.json, merges.txt)');
    this.release();
    const controller = new AbortController();
    const held = { key: source.key, controller, checkpoint: null };
    held.promise = this.lab.openCheckpoint({ ...(source.url ? { url: source.url } : { files }), onProgress, signal: controller.signal,
      chunkBytes: PAGE_CHUNK_BYTES })
      .then((checkpoint) => {
        if (this.held !== held) { // switched away while it loaded
          checkpoint.dispose();
          throw new DOMException('the model was switched while it loaded', 'AbortError');
        }
        held.checkpoint = checkpoint;
        return checkpoint;
      }, (e) => {
        if (this.held === held) this.held = null; // a later call may try again
        throw e;
      });
    held.promise.catch(() => {}); // a load given up on rejects with nobody waiting
    this.held = held;
    return held.promise;
  }

  // Gives the held checkpoint's memory back (cancelling its load if it is
  // still loading); the next open() reads it again.
  release() {
    const held = this.held;
    if (!held) return;
    this.held = null;
    if (held.checkpoint) held.checkpoint.dispose();
    else held.controller.abort();
  }

  // Follows the state: releases the checkpoint when the state's model is
  // no longer the one held (the head, the transformer, another checkpoint).
  follow(state) {
    const source = checkpointSource(state, this.base);
    if (this.held && this.held.key !== source?.key) this.release();
  }
}

// One loader per lab, shared by the views that show a checkpoint and the
// one that opens GPT-2's files: the model opened through either is the one
// the others see (ready()), and one follow() releases it for all.
const loaders = new WeakMap();
export function loaderFor(lab) {
  if (!loaders.has(lab)) loaders.set(lab, new CheckpointLoader(lab));
  return loaders.get(lab);
}

// The lab of the checkpoint open for `lab`'s page, if any (for ?debug's
// memory report: its module has a memory of its own).
export function heldCheckpointLab(lab) {
  return loaders.get(lab)?.held?.checkpoint?.lab ?? null;
}

// ---- GPT-2's files as the student chose them ---------------------------------

// The files a checkpoint is read from; everything else in a chosen folder
// (Hugging Face's gpt2 also holds PyTorch, TensorFlow, Flax and ONNX copies
// of the weights, hundreds of megabytes each) is left unread.
const CHECKPOINT_FILE = /^(config\.json|vocab\.json|merges\.txt|model\.safetensors\.index\.json|[^/]*\.safetensors)$/;

// {name: File} from File objects (an <input multiple>, a folder, a drop),
// named by their base name. A folder's subfolders may hold files of the
// same name (openai-community/gpt2's onnx/config.json): the one nearest the
// top wins. `path(f)`: where f is in the folder (webkitRelativePath).
export function checkpointFiles(list, path = (f) => f.webkitRelativePath || f.name) {
  const chosen = new Map();
  for (const file of list) {
    const name = file.name.split('/').pop();
    if (!CHECKPOINT_FILE.test(name)) continue;
    const depth = path(file).split('/').length;
    if (!chosen.has(name) || depth < chosen.get(name).depth) chosen.set(name, { file, depth });
  }
  return Object.fromEntries([...chosen].map(([name, { file }]) => [name, file]));
}

// ---- keeping them on the device -----------------------------------------------
//
// The chosen files are copied into the origin private file system (OPFS), so
// that a reload opens GPT-2 without asking again. The list of what was kept
// is written last: a copy cut short (a closed tab, a full disk) has no list
// and counts as nothing kept.
const KEPT_FOLDER = 'poslab-gpt2';
const KEPT_LIST = 'kept.json';

// Whether this page can keep files: a browser with OPFS that writes from
// the page's thread (Safari writes there only from a worker), and not a
// page opened from file:// (whose origin is opaque: nothing stays).
export function canKeep() {
  return globalThis.location?.protocol !== 'file:' && typeof globalThis.navigator?.storage?.getDirectory === 'function' &&
    typeof globalThis.FileSystemFileHandle?.prototype.createWritable === 'function';
}

// The kept files as {name: File}, or null when none are kept.
export async function keptFiles() {
  if (!canKeep()) return null;
  try {
    const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle(KEPT_FOLDER);
    const list = JSON.parse(await (await (await dir.getFileHandle(KEPT_LIST)).getFile()).text());
    const files = {};
    for (const { name, size } of list.files) {
      const file = await (await dir.getFileHandle(name)).getFile();
      if (file.size !== size) return null;
      files[name] = file;
    }
    return files;
  } catch {
    return null; // no folder, no list, a file gone: nothing kept
  }
}

const MB = (bytes) => `${Math.round(bytes / 1e6)} MB`;

// Copies `files` ({name: File}) into the kept folder, in place of what was
// kept before. Rejects with a message a student can act on when the
// browser's quota for this site is too small, leaving nothing half kept.
export async function keepFiles(files) {
  if (!canKeep()) throw new Error('this browser cannot keep files for a page (no origin private file system)');
  await forgetFiles();
  const entries = Object.entries(files);
  const total = entries.reduce((sum, [, f]) => sum + f.size, 0);
  const { quota, usage } = await navigator.storage.estimate?.() ?? {};
  const tooSmall = () => new Error(`not kept on this device: the files take ${MB(total)}; ` +
    `the browser lets this site keep ${quota === undefined ? 'less' : MB(Math.max(0, quota - usage))}`);
  if (quota !== undefined && usage + total > quota) throw tooSmall();
  navigator.storage.persist?.().catch(() => {}); // ask that it not be evicted first; it is kept either way
  const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle(KEPT_FOLDER, { create: true });
  const write = async (name, data) => {
    const writable = await (await dir.getFileHandle(name, { create: true })).createWritable();
    try {
      await writable.write(data);
      await writable.close();
    } catch (e) {
      await writable.abort().catch(() => {});
      throw e;
    }
  };
  try {
    for (const [name, file] of entries) await write(name, file);
    await write(KEPT_LIST, JSON.stringify({ files: entries.map(([name, f]) => ({ name, size: f.size })) }));
  } catch (e) {
    await forgetFiles();
    // Chromium, out of quota while it copies a File, can report the File
    // as unreadable (NotReadableError) rather than the quota: either way
    // the model stays open and nothing is kept, which is what the line says.
    throw e?.name === 'QuotaExceededError' ? tooSmall() : new Error(`not kept on this device: ${e?.message ?? e}`);
  }
}

// Removes the kept files (nothing kept: nothing to do).
export async function forgetFiles() {
  if (!canKeep()) return;
  try {
    await (await navigator.storage.getDirectory()).removeEntry(KEPT_FOLDER, { recursive: true });
  } catch (e) {
    if (e?.name !== 'NotFoundError') throw e;
  }
}
