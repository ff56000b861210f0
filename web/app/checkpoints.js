// checkpoints.js - the checkpoint models behind the page, with no DOM: which
// folder a state's model comes from, and one open checkpoint at a time.
// A checkpoint holds its weights in a WebAssembly instance of its own
// (poslab.js's openCheckpoint), and GPT-2's take half a gigabyte, so the
// loader keeps only the model the state names: switching away disposes it,
// which gives its memory back whole.
import { TRAINED_MODELS, isCheckpointModel } from './state.js';

// Where the state's model is read from: {key, url} for a folder on the
// site (a trained model, or GPT-2 from a course host's folder), {key} for
// GPT-2 from the student's files, or null for the head and the transformer.
// `base`: the page's URL, which the folders are relative to; a folder that
// resolves to another origin is refused (state.js already refuses such text
// in a link; this guards every other way in).
export function checkpointSource(state, base) {
  if (!isCheckpointModel(state.model)) return null;
  if (TRAINED_MODELS.includes(state.model)) {
    return { key: state.model, url: new URL(`models/${state.model}/`, base).href };
  }
  if (!state.checkpoint) return { key: 'gpt2:files' };
  const url = new URL(state.checkpoint, base);
  if (url.origin !== new URL(base).origin) throw new Error(`checkpoint: ${state.checkpoint} is not on this site; allowed: a folder on this site`);
  return { key: `gpt2:${url.href}`, url: url.href };
}

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
    held.promise = this.lab.openCheckpoint({ ...(source.url ? { url: source.url } : { files }), onProgress, signal: controller.signal })
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
