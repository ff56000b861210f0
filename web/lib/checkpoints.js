// checkpoints.js - opening GPT-2-family checkpoints for poslab.js (docs/interfaces.md,
// "Checkpoints"). Loaded by poslab.js's openCheckpoint the first time a
// checkpoint is opened.

import { nextTurn } from './next_turn.js';
import { CHECKPOINT_MODEL } from './trained_models.js';

// What this file needs of the wrapper, handed over by poslab.js when it
// loads it (an import of poslab.js would make these part of its public face).
let Lab, MESSAGE_BYTES, NODE_FS, checkText, pairIndex, SINGLE_FILE;
const RUNNING = 5; // POSLAB_RUNNING

export function openCheckpoint(options, wrapper) {
  ({ Lab, MESSAGE_BYTES, NODE_FS, checkText, pairIndex, SINGLE_FILE } = wrapper);
  return open(SINGLE_FILE ? carriedFolder(options) : options);
}

// Where a url that is a path is read from outside a browser (Node): the
// working directory, as a file: URL (the pathname setter escapes a space,
// # or ? in it).
function workingFolder() {
  if (typeof globalThis.process?.cwd !== 'function') return undefined;
  const here = new URL('file:///');
  here.pathname = `${globalThis.process.cwd()}/`;
  return here;
}

// In the single file, a url into the site's models/ folder (models/gpt/)
// reads the copy the file carries: it has no folder beside it to fetch from.
const CHECKPOINT_NAMES = ['config.json', 'model.safetensors', 'vocab.json', 'merges.txt'];
function carriedFolder(options) {
  if (!options.url) return options;
  const name = new URL(String(options.url), globalThis.location?.href).pathname.match(/(?:^|\/)models\/([^/]+)\/?$/)?.[1];
  if (!name || !SINGLE_FILE.models.includes(name)) {
    throw new Error(`checkpoint: ${options.url} is not in the single file, which carries models/` +
                    `${SINGLE_FILE.models.join(', models/')}; allowed: one of those, or the checkpoint's files`);
  }
  const files = Object.fromEntries(CHECKPOINT_NAMES.map((f) => [f, new Blob([SINGLE_FILE.carried(`models/${name}/${f}`)])]));
  return { ...options, url: undefined, files };
}
//
// A checkpoint runs in a module of its own, poslab-checkpoint.wasm (the core
// with the checkpoint code, memory up to 4 GiB), loaded the first time one
// is opened: the main module stays small. Each opened checkpoint gets a
// fresh instance of it, so dispose() hands every byte back to the browser.

const CHECKPOINT_GLUE = './poslab-checkpoint.js';
const CHECKPOINT_WASM = 'poslab-checkpoint.wasm';
const WASM_MEMORY_LIMIT = 2 ** 32;
let checkpointParts; // { create, module }: compiled once

async function checkpointModule(base) {
  if (!checkpointParts && SINGLE_FILE) { // the single file's copies, decoded now
    const { default: create } = await SINGLE_FILE.checkpointGlue();
    checkpointParts = { create, module: await WebAssembly.compile(SINGLE_FILE.carried(CHECKPOINT_WASM)) };
  }
  if (!checkpointParts) {
    const glue = CHECKPOINT_GLUE; // named through a variable: bundlers leave the import to run time
    const { default: create } = await import(glue);
    const url = new URL(CHECKPOINT_WASM, base ?? new URL('./', import.meta.url));
    let module;
    if (url.protocol === 'file:') {
      const { readFile } = await import(NODE_FS);
      module = await WebAssembly.compile(await readFile(url));
    } else {
      const response = await fetch(url);
      if (!response.ok) throw new Error(`poslab: cannot load ${url.pathname} (HTTP ${response.status})`);
      module = await WebAssembly.compile(await response.arrayBuffer());
    }
    checkpointParts = { create, module };
  }
  const { create, module } = checkpointParts;
  let failed;
  const failure = new Promise((resolve, reject) => { failed = reject; });
  return Promise.race([failure, create({
    instantiateWasm(imports, receive) {
      WebAssembly.instantiate(module, imports).then((instance) => receive(instance, module), failed);
      return {};
    },
  })]);
}

// Chromium loses a pending read of a Blob's stream (a File's too) when a
// garbage collection finds nothing that reaches its reader: the read's
// promise never settles. An open's awaits are a chain that only the read
// itself holds (nothing on the page reaches a suspended async function),
// so each reader is held here while a read of it is pending. In Chromium
// 156, of 200 quarter-megabyte reads of a File that nothing held, then a
// collection, 32 to 142 never answered (tests/browser/gc_reads.test.mjs);
// held, none. It was the read that waited for good under a stress probe
// (the files chosen while the kept copy opened, three browsers on two
// cores): with neither this hold nor the re-read below, 19 stalls in
// about 330 rounds; with the hold alone, none in 1,131.
const READING = new Set();
async function heldRead(reader, view) {
  READING.add(reader);
  try {
    return await (view ? reader.read(view) : reader.read());
  } finally {
    READING.delete(reader);
  }
}

// Should a read still give nothing for this long (a local file gives its
// first bytes within milliseconds, even from a slow disk: a read resolves
// with what has come), it is given up and the file read again from where
// it stood, a few times before the open fails.
export const STALLED_READ_MS = 4000;
const STALLED_READ_TRIES = 3;

// `promise`'s value, or undefined if it has not settled within `ms`.
function settledWithin(promise, ms) {
  let timer;
  return Promise.race([promise, new Promise((resolve) => { timer = setTimeout(resolve, ms); })])
    .finally(() => clearTimeout(timer));
}

// Where a checkpoint's files come from: name -> { size, read() } where
// read() gives the file's bytes in order, a chunk a call (null at the end;
// a chunk may be overwritten by the next call).
// `files`: File objects (their names) or { name: Blob | ArrayBuffer |
// Uint8Array }; `url`: the checkpoint folder's URL (same origin), fetched
// as streams, so that no file is held whole.
function checkpointSource({ files, url, chunkBytes }) {
  if (files) {
    const blobs = new Map();
    const entries = files[Symbol.iterator] && !(files instanceof Map) && typeof files !== 'string'
      ? Array.from(files, (f) => [f.name, f]) : Object.entries(files instanceof Map ? Object.fromEntries(files) : files);
    for (const [name, f] of entries) {
      blobs.set(String(name).split('/').pop(), f instanceof Blob ? f : new Blob([f]));
    }
    return {
      has: async (name) => blobs.has(name),
      open: async (name) => {
        const blob = blobs.get(name);
        if (!blob) throw new Error(`${name}: not among the files given; expected it in the checkpoint`);
        // A stream reads ahead while the chunk before is converted: in
        // Chromium it read GPT-2 small's 548 MB in 6.4 s where a slice a
        // chunk, each awaited in turn, took 13.5 s.
        // Read into one buffer of chunkBytes, again and again, where the
        // browser can (a byte stream's BYOB reader): Chromium's own chunks
        // are new buffers, and under 2x throttling copying them in and
        // collecting them made tasks of 56-68 ms during the read. So a
        // chunk read() gives is the caller's only until it calls again.
        if (typeof blob.stream === 'function') {
          let reader = null, buffer = null, at = 0;
          const start = () => {
            const stream = (at ? blob.slice(at) : blob).stream();
            try {
              reader = stream.getReader({ mode: 'byob' });
              buffer ??= new ArrayBuffer(chunkBytes);
            } catch {
              reader = stream.getReader();
              buffer = null;
            }
          };
          return {
            size: blob.size,
            async read() {
              for (let tries = 1; ; tries++) {
                if (!reader) start();
                const result = await settledWithin(heldRead(reader, buffer && new Uint8Array(buffer)), STALLED_READ_MS);
                if (result) {
                  const { value, done } = result;
                  if (buffer && value) buffer = value.buffer; // (handed back, detached from the view before)
                  if (done) return null;
                  at += value.length;
                  return value;
                }
                // the read never answered: its buffer stays with it (start() makes a new one)
                reader.cancel().catch(() => {});
                reader = null;
                buffer = null;
                if (tries === STALLED_READ_TRIES) {
                  throw new Error(`${name}: reading it stopped (nothing came for ${STALLED_READ_MS / 1000} s, ` +
                                  `${STALLED_READ_TRIES} times); choose the files again`);
                }
              }
            },
            cancel() { reader?.cancel().catch(() => {}); },
          };
        }
        let at = 0;
        return {
          size: blob.size,
          async read() {
            if (at >= blob.size) return null;
            const end = Math.min(blob.size, at + chunkBytes);
            const bytes = new Uint8Array(await blob.slice(at, end).arrayBuffer());
            at = end;
            return bytes;
          },
          cancel() {},
        };
      },
    };
  }
  if (!url) throw new Error('openCheckpoint: give files or url');
  const folder = new URL(String(url).endsWith('/') ? String(url) : `${url}/`, globalThis.location?.href ?? workingFolder());
  if (folder.protocol === 'file:') { // Node: the same streaming through a file handle
    return {
      has: async (name) => {
        const { stat } = await import(NODE_FS);
        return stat(new URL(name, folder)).then(() => true, () => false);
      },
      open: async (name) => {
        const { open } = await import(NODE_FS);
        const handle = await open(new URL(name, folder));
        const { size } = await handle.stat();
        let at = 0;
        return {
          size,
          async read() {
            if (at >= size) { await handle.close(); return null; }
            const buffer = new Uint8Array(Math.min(chunkBytes, size - at));
            const { bytesRead } = await handle.read(buffer, 0, buffer.length, at);
            at += bytesRead;
            if (!bytesRead) { await handle.close(); return null; }
            return buffer.subarray(0, bytesRead);
          },
          cancel() { handle.close().catch(() => {}); },
        };
      },
    };
  }
  return {
    has: async (name) => (await fetch(new URL(name, folder), { method: 'HEAD' })).ok,
    open: async (name) => {
      const response = await fetch(new URL(name, folder));
      if (!response.ok) throw new Error(`${name}: HTTP ${response.status}; expected the file`);
      const size = Number(response.headers.get('content-length'));
      if (!Number.isFinite(size) || !response.headers.has('content-length')) {
        throw new Error(`${name}: the server sends no Content-Length; expected the file's size`);
      }
      const reader = response.body.getReader();
      return {
        size,
        async read() {
          const { value, done } = await heldRead(reader);
          return done ? null : value;
        },
        cancel() { reader.cancel().catch(() => {}); },
      };
    },
  };
}

// The read gives the event loop a turn at least this often: chunks that are
// already there (a File's stream reads ahead) resolve as microtasks, and a
// loop over them alone would hold the page's thread for the whole file.
const YIELD_MS = 10;
// (next_turn.js; not scheduler.yield(): its continuation goes ahead of the
// page's timers, which then wait for the whole read, as the address bar's
// update did.)
async function readWhole(source, name) {
  const file = await source.open(name);
  const out = new Uint8Array(file.size);
  let at = 0;
  for (let chunk; (chunk = await file.read()) && at < out.length;) {
    out.set(chunk.subarray(0, out.length - at), at);
    at += chunk.length;
  }
  return out;
}

// Opens a checkpoint: options { files | url, onProgress, signal, maxBytes,
// chunkBytes }. onProgress gets { phase: 'planned', bytesNeeded } once every
// header is read and checked, before the weights' memory is taken (a
// caller may abort then), then { phase: 'loading', loaded, total } as the
// data streams in. signal (an AbortSignal) cancels; maxBytes refuses a
// checkpoint that needs more. Resolves to a Checkpoint; rejects with an
// Error whose message is the core's one line, and leaves nothing allocated.
async function open({ files, url, onProgress = () => {}, signal, maxBytes = Infinity,
  chunkBytes = 1 << 20, base } = {}) {
  const aborted = () => {
    if (signal?.aborted) throw signal.reason ?? new DOMException('checkpoint loading was cancelled', 'AbortError');
  };
  aborted();
  const source = checkpointSource({ files, url, chunkBytes });
  const core = await checkpointModule(base);
  const lab = new Lab(core, true);
  lab.ownsCheckpoint = true; // the lab inside the checkpoint module: it runs the model itself
  const ck = new Checkpoint(core, lab);
  const open = [];
  try {
    const boxed = core._malloc(8) >>> 0;
    if (!boxed) throw new Error('poslab: out of memory');
    ck.boxed = boxed;
    if (core._poslab_checkpoint_create(boxed) !== 0) throw new Error('poslab: out of memory');
    ck.ck = new Uint32Array(core.HEAPU8.buffer, boxed, 1)[0];
    const small = async (name) => ck.bytes(await readWhole(source, name));
    ck.call('_poslab_checkpoint_config', ck.ck, ck.text('config.json'), ...await small('config.json'));
    ck.release();
    const vocab = await small('vocab.json');
    const merges = await small('merges.txt');
    // GPT-2's 50,257 tokens, then its 50,000 merges, 8192 a step, each in
    // a task of its own: in one call they held the page's thread for ~90 ms.
    try {
      ck.call('_poslab_checkpoint_tokenizer_begin', ck.ck, ck.text('vocab.json'), ...vocab, ck.text('merges.txt'), ...merges);
      for (;;) {
        await nextTurn();
        aborted();
        const status = core._poslab_checkpoint_tokenizer_step(ck.ck, lab.message, MESSAGE_BYTES);
        if (status === 0) break;
        if (status !== RUNNING) throw lab.fail();
      }
    } finally {
      ck.release();
    }
    const index = 'model.safetensors.index.json';
    let names = ['model.safetensors'];
    // the single file first: asking a server for an index it does not have
    // costs a 404 in the console on every unsharded model (the usual case)
    if (!(await source.has('model.safetensors')) && await source.has(index)) {
      ck.call('_poslab_checkpoint_shards', ck.ck, ck.text(index), ...await small(index));
      ck.release();
      names = [];
      for (let k = 0; ; k++) {
        const p = core._poslab_checkpoint_shard(ck.ck, k) >>> 0;
        if (!p) break;
        names.push(core.UTF8ToString(p));
      }
    }
    // every header first: nothing large is allocated before they all pass
    for (const name of names) {
      aborted();
      const file = await source.open(name);
      open.push(file);
      let head = new Uint8Array(0);
      const more = async () => {
        const chunk = await file.read();
        if (!chunk) return false;
        const joined = new Uint8Array(head.length + chunk.length);
        joined.set(head);
        joined.set(chunk, head.length);
        head = joined;
        return true;
      };
      while (head.length < 8 && await more());
      const first = ck.bytes(head.subarray(0, Math.min(8, head.length)))[0];
      const out = ck.scratch(8);
      ck.call('_poslab_safetensors_header_bytes', ck.text(name), first, BigInt(head.length < 8 ? head.length : file.size), out);
      const headerBytes = Number(new BigUint64Array(core.HEAPU8.buffer, out, 1)[0]);
      while (head.length < headerBytes && await more());
      const [hp, hl] = ck.bytes(head.subarray(0, headerBytes));
      const index = ck.scratch(4);
      ck.call('_poslab_checkpoint_add_file', ck.ck, ck.text(name), BigInt(file.size), hp, hl, index);
      file.index = new Int32Array(core.HEAPU8.buffer, index, 1)[0];
      file.rest = head.subarray(headerBytes);
      file.name = name;
      ck.release();
    }
    const planned = ck.scratch(8);
    ck.call('_poslab_checkpoint_plan', ck.ck, planned);
    const bytesNeeded = Number(new BigUint64Array(core.HEAPU8.buffer, planned, 1)[0]);
    ck.release();
    ck.bytesNeeded = bytesNeeded;
    onProgress({ phase: 'planned', bytesNeeded });
    aborted();
    if (bytesNeeded > maxBytes) {
      throw new Error(`checkpoint: its weights need ${bytesNeeded} bytes; allowed: at most ${maxBytes} (maxBytes)`);
    }
    if (bytesNeeded + core.HEAPU8.length > WASM_MEMORY_LIMIT) {
      throw new Error(`checkpoint: its weights need ${(bytesNeeded / 2 ** 30).toFixed(2)} GiB; ` +
                      'WebAssembly memory holds at most 4 GiB (gpt2-medium fits; larger models need the native CLI)');
    }
    ck.call('_poslab_checkpoint_allocate', ck.ck);
    const total = open.reduce((sum, f) => sum + Number(core._poslab_checkpoint_file_end(ck.ck, f.index)), 0);
    let loaded = 0;
    let turn = performance.now();
    const staging = core._malloc(chunkBytes) >>> 0;
    if (!staging) throw new Error('poslab: out of memory');
    try {
      for (const file of open) {
        const end = Number(core._poslab_checkpoint_file_end(ck.ck, file.index));
        let at = Number(core._poslab_checkpoint_file_next(ck.ck, file.index));
        loaded += at;
        let chunk = file.rest;
        while (at < end) {
          if (performance.now() - turn > YIELD_MS) {
            await nextTurn();
            turn = performance.now();
          }
          aborted();
          if (!chunk || !chunk.length) {
            chunk = await file.read();
            if (!chunk) break; // finish names what is missing
          }
          const piece = chunk.subarray(0, Math.min(chunk.length, chunkBytes, end - at));
          chunk = chunk.subarray(piece.length);
          core.HEAPU8.set(piece, staging); // a fresh view: memory may have grown
          const st = core._poslab_checkpoint_feed(ck.ck, file.index, BigInt(at), staging, piece.length, lab.message,
            MESSAGE_BYTES);
          if (st !== 0) throw lab.fail();
          at += piece.length;
          loaded += piece.length;
          onProgress({ phase: 'loading', loaded, total });
        }
        file.cancel();
      }
    } finally {
      core._free(staging);
    }
    await nextTurn(); // the last piece's task ends here: finishing (and a first run) is work of its own
    aborted();
    ck.call('_poslab_checkpoint_finish', ck.ck);
    ck.call('_poslab_use_checkpoint', lab.lab, ck.ck);
    const info = core._poslab_checkpoint_json(ck.ck) >>> 0;
    ck.info = JSON.parse(core.UTF8ToString(info));
    return ck;
  } catch (e) {
    for (const f of open) f.cancel();
    ck.dispose();
    throw e;
  }
}

// An opened checkpoint: run() is lab.run() with model checkpoint on it.
class Checkpoint {
  constructor(core, lab) {
    this.core = core;
    this.lab = lab;
    this.held = []; // heap copies of the current call's arguments
    this.disposed = false;
  }

  // bytes copied into the heap (freed by release()): [pointer, length].
  bytes(u8) {
    const p = this.core._malloc(Math.max(1, u8.length)) >>> 0;
    if (!p) throw new Error('poslab: out of memory');
    this.held.push(p);
    this.core.HEAPU8.set(u8, p);
    return [p, u8.length];
  }

  text(s) {
    const p = this.lab.string(s) >>> 0;
    this.held.push(p);
    return p;
  }

  scratch(n) {
    return this.bytes(new Uint8Array(n))[0];
  }

  release() {
    for (const p of this.held) this.core._free(p);
    this.held = [];
  }

  // A core call with the message buffer last; throws its line.
  call(name, ...args) {
    const st = this.core[name](...args, this.lab.message, MESSAGE_BYTES);
    if (st !== 0) {
      const error = this.lab.fail();
      this.release();
      throw error;
    }
  }

  run(config = {}) {
    this.alive();
    return this.lab.run({ ...config, model: CHECKPOINT_MODEL });
  }

  // A run in steps goes on a second lab of the same module, which borrows
  // the same weights: the page's runs for the verdicts (a slider step)
  // come in between a chart's steps, and a call on the lab that steps
  // would drop its run.
  *runSteps(config = {}) {
    this.alive();
    return yield* this.stepper().runSteps({ ...config, model: CHECKPOINT_MODEL });
  }

  // The lab that steps (see runSteps), made with the first call.
  stepper() {
    if (!this.stepLab) {
      const lab = new Lab(this.core, true);
      lab.ownsCheckpoint = true;
      if (this.core._poslab_use_checkpoint(lab.lab, this.ck, lab.message, MESSAGE_BYTES) !== 0) {
        const error = lab.fail();
        lab.dispose();
        throw error;
      }
      // where a search in steps writes its scale: one for the lab, since
      // a search dropped part way never reaches a `finally` to free its own
      lab.scaleOut = this.core._malloc(8) >>> 0;
      if (!lab.scaleOut) {
        lab.dispose();
        throw new Error('poslab: out of memory');
      }
      this.stepLab = lab;
    }
    return this.stepLab;
  }

  // lab.threshold() on this checkpoint.
  threshold(config, pair, range) {
    this.alive();
    return this.lab.threshold({ ...config, model: CHECKPOINT_MODEL }, pair, range);
  }

  // The same threshold in steps (poslab_threshold_begin/_step), as
  // runSteps is run() in steps and on the same second lab: a generator
  // whose first next() checks the arguments and makes the draws, and each
  // later one does one bounded step (a third of a block of one sentence of
  // one of the search's probes, a pass of both sentences at one magnitude); the
  // last returns threshold()'s number for the same arguments, equal to the
  // bit. To drop it, stop calling next(): the next runSteps or
  // thresholdSteps ends it.
  *thresholdSteps(config, pair, range = {}) {
    this.alive();
    const lab = this.stepper();
    const { core } = this;
    const { lo = 1e-12, hi = 1e3, relTol = 1e-3 } = range;
    const mine = {};
    lab.stepping = mine;
    const cfg = lab.configure({ ...config, model: CHECKPOINT_MODEL });
    try {
      if (core._poslab_threshold_begin(lab.lab, cfg, pairIndex(pair), lo, hi, relTol, lab.message, MESSAGE_BYTES) !== 0) throw lab.fail();
    } finally {
      core._poslab_config_free(cfg); // the core keeps a copy
    }
    for (;;) {
      yield;
      this.alive();
      if (lab.stepping !== mine) throw new Error('poslab: this search was dropped: the lab has begun another since');
      const status = core._poslab_threshold_step(lab.lab, lab.scaleOut, lab.message, MESSAGE_BYTES);
      if (status === 0) return core.HEAPF64[lab.scaleOut / 8]; // a fresh view: memory may have grown
      if (status !== RUNNING) throw lab.fail();
    }
  }

  // GPT-2's tokens of text: [{id, text}] (poslab --tokenize --json).
  tokenize(text, { prefixSpace = true } = {}) {
    this.alive();
    const p = this.text(checkText('text', String(text)));
    try {
      const json = this.core._poslab_checkpoint_tokens_json(this.ck, p, this.core.lengthBytesUTF8(String(text)),
        prefixSpace ? 1 : 0, this.lab.message, MESSAGE_BYTES) >>> 0;
      if (!json) throw this.lab.fail();
      return JSON.parse(this.core.UTF8ToString(json)).tokens;
    } finally {
      this.release();
    }
  }

  alive() {
    if (this.disposed) throw new Error('poslab: this checkpoint has been disposed');
  }

  // Frees the checkpoint and drops its module instance, whose memory the
  // browser then takes back.
  dispose() {
    if (this.disposed) return;
    this.disposed = true;
    this.release();
    if (this.ck) this.core._poslab_checkpoint_free(this.ck);
    if (this.boxed) this.core._free(this.boxed);
    if (this.stepLab) this.core._free(this.stepLab.scaleOut);
    this.stepLab?.dispose();
    this.lab.dispose();
    this.ck = 0;
    this.core = null;
    this.onDispose?.();
  }
}
