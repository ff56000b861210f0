// poslab.js - the JavaScript face of the C core, and the only code that
// touches the WebAssembly heap. Every call copies strings in, checks the
// status, copies the result out as plain JS values and frees in `finally`.
// The small part of a result comes out as the core's own JSON (the CLI's
// writer); the big arrays (sweep, outputs, attention) are copied straight
// from typed-array views, since formatting thousands of doubles as text in
// WebAssembly costs milliseconds.
//
//   import { createLab } from './poslab.js';
//   const lab = await createLab();              // loads poslab.wasm beside this file
//   const result = lab.run({ scheme: 'none' }); // the CLI's JSON, as an object
//   lab.dispose();
//
// Options travel to the core as text through poslab_config_set, the same
// parser the CLI uses, so an invalid value throws an Error with the same
// words as the CLI's stderr line.
import createPoslabCore from './poslab-core.js';
import { SINGLE_FILE } from './bundled.js';

// The C functions this wrapper calls; tests check it against src/exports.json.
export const CORE_FUNCTIONS = [
  '_malloc', '_free',
  '_poslab_config_new', '_poslab_config_free', '_poslab_config_set',
  '_poslab_create', '_poslab_destroy', '_poslab_run', '_poslab_run_begin', '_poslab_run_step',
  '_poslab_json', '_poslab_result_array',
  '_poslab_threshold', '_poslab_status_text', '_poslab_options_json', '_poslab_heap_bytes_in_use',
  '_poslab_sinusoidal_table', '_poslab_alibi_slope',
];

// The checkpoint module's functions beyond CORE_FUNCTIONS; tests check it
// against src/exports_checkpoint.json.
export const CHECKPOINT_FUNCTIONS = [
  '_poslab_checkpoint_create', '_poslab_checkpoint_free', '_poslab_checkpoint_config',
  '_poslab_checkpoint_tokenizer', '_poslab_checkpoint_shards', '_poslab_checkpoint_shard',
  '_poslab_safetensors_header_bytes', '_poslab_checkpoint_add_file', '_poslab_checkpoint_plan',
  '_poslab_checkpoint_allocate', '_poslab_checkpoint_feed', '_poslab_checkpoint_file_next',
  '_poslab_checkpoint_file_end', '_poslab_checkpoint_finish', '_poslab_checkpoint_json',
  '_poslab_use_checkpoint', '_poslab_checkpoint_tokens_json',
];

const MESSAGE_BYTES = 320; // POSLAB_MESSAGE_BYTES
const RUNNING = 5;         // POSLAB_RUNNING
const JSON_NO_SWEEP = 2;   // POSLAB_JSON_NO_SWEEP
const ARRAY = { // poslab_array
  outputA: 0, outputB: 1, attentionA: 2, attentionB: 3, scales: 4, cosine: 5, allclose: 6, scoresA: 7, scoresB: 8,
};
const ASCII_SPACE = /[ \t\n\r\f\v]/;

// Two builds of the same C (CMake's POSLAB_SIMD): with WebAssembly SIMD, and
// plain WebAssembly 1.0 for engines without it (Safari before 16.4). Both
// give the same numbers; the glue, poslab-core.js, is the same file for both.
const CORE_FILES = { simd: 'poslab.wasm', nosimd: 'poslab-nosimd.wasm' };

// A tiny module whose one function returns i8x16.popcnt(i8x16.splat(0)):
// only an engine with the finished SIMD standard (popcnt came last) accepts it.
const SIMD_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version 1
  0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b,       // type section: () -> v128
  0x03, 0x02, 0x01, 0x00,                         // function section: one function of type 0
  0x0a, 0x0a, 0x01, 0x08, 0x00,                   // code section: one body, no locals
  0x41, 0x00, 0xfd, 0x0f, 0xfd, 0x62, 0x0b,       // i32.const 0, i8x16.splat, i8x16.popcnt, end
]);

// Whether this engine runs WebAssembly SIMD (what createLab picks by).
export function simdSupported() {
  return WebAssembly.validate(SIMD_PROBE);
}

const NODE_FS = 'node:fs/promises';

function fromBase64(text) {
  const bytes = atob(text);
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) out[i] = bytes.charCodeAt(i);
  return out;
}

// The compiled core. Over HTTP it compiles while the bytes arrive (and from
// the page's preload, without copying them out first); a host that serves
// .wasm under another MIME type, which compileStreaming refuses, gets the
// bytes compiled instead. Node, or a page opened from disk, reads the file;
// the single-file page decodes the copy it carries.
async function wasmModule(simd, base) {
  const name = simd ? 'simd' : 'nosimd';
  if (SINGLE_FILE) return WebAssembly.compile(fromBase64(SINGLE_FILE.cores[name]));
  // (the default only here: a copy that carries its cores may run where this
  // file has no folder, as the single file's workers do, from blob: URLs)
  const url = new URL(CORE_FILES[name], base ?? new URL('./', import.meta.url));
  if (url.protocol === 'file:') {
    // named through a variable, so that bundlers for the browser leave it be
    const { readFile } = await import(NODE_FS);
    return WebAssembly.compile(await readFile(url));
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`poslab: cannot load ${url.pathname} (HTTP ${response.status})`);
  if (WebAssembly.compileStreaming && response.headers.get('content-type')?.split(';')[0].trim() === 'application/wasm') {
    return WebAssembly.compileStreaming(response);
  }
  return WebAssembly.compile(await response.arrayBuffer());
}

// `simd`: which build to load (default: SIMD where the engine has it); false
// forces the fallback. `base`: the folder (URL) the .wasm files are in,
// by default this file's (a bundler that moves this code elsewhere needs it).
export async function createLab({ simd = simdSupported(), base } = {}) {
  simd = Boolean(simd);
  const module = await wasmModule(simd, base);
  // The glue hands its imports to instantiateWasm and waits for receive();
  // it has no way to hear of a failure, so one ends createLab here instead.
  let failed;
  const failure = new Promise((resolve, reject) => { failed = reject; });
  const core = await Promise.race([failure, createPoslabCore({
    instantiateWasm(imports, receive) {
      WebAssembly.instantiate(module, imports).then((instance) => receive(instance, module), failed);
      return {};
    },
  })]);
  const lab = new Lab(core, simd);
  lab.base = base;
  return lab;
}

// Text for one config value, or an Error naming the field.
// A lone UTF-16 surrogate has no UTF-8 form; stringToUTF8 would quietly
// merge it with its neighbour, so it is refused instead.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

// The core reads C strings, so a NUL would silently end the text there.
function checkText(key, text) {
  if (LONE_SURROGATE.test(text)) {
    throw new Error(`${key}: contains a lone UTF-16 surrogate; allowed: well-formed Unicode text`);
  }
  if (text.includes('\0')) throw new Error(`${key}: contains a NUL character; allowed: text without NUL`);
  return text;
}

// The text poslab_config_set takes for `value` of the option `row` (a row
// of the core's table, named by its JSON key), or an Error naming the field.
function optionText(row, value) {
  const key = row.json;
  switch (row.kind) {
    case 'text':
      if (typeof value === 'string') return checkText(key, value);
      if (Array.isArray(value)) {
        value.forEach((word, k) => {
          if (typeof word !== 'string' || word === '' || ASCII_SPACE.test(word)) {
            throw new Error(`${key}: word ${k + 1} (${JSON.stringify(word)}) is not a single word; ` +
                            'allowed: non-empty strings without spaces');
          }
        });
        return checkText(key, value.join(' '));
      }
      throw new Error(`${key}: ${JSON.stringify(value)} is not text; allowed: a string or an array of words`);
    case 'switch':
      if (typeof value === 'boolean') return String(value);
      if (value === 'true' || value === 'false') return value;
      throw new Error(`${key}: ${JSON.stringify(value)} is not a switch value; allowed: ${row.allowed}`);
    case 'sweep':
      return checkText(key, sweepText(value));
    default:
      if (typeof value === 'number' || typeof value === 'string') return checkText(key, String(value));
      throw new Error(`${key}: ${JSON.stringify(value)} is not ${row.kind === 'choice' ? `a ${row.name}` : 'a number'}; ` +
                      `allowed: ${row.allowed}`);
  }
}

function sweepText(sweep) {
  if (sweep === undefined || sweep === null || sweep === false) return '';
  const { lo, hi, count } = sweep;
  return `${lo}:${hi}:${count}`;
}

function deepFreeze(value) {
  if (value && typeof value === 'object') {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

class Lab {
  constructor(core, simd) {
    this.core = core;
    this.simd = simd; // which build runs: true for SIMD, false for the fallback
    this.lab = core._poslab_create();
    this.message = core._malloc(MESSAGE_BYTES);
    if (!this.lab || !this.message) throw new Error('poslab: out of memory');
  }

  // A copy of s in the heap; the caller frees it.
  string(s) {
    const size = this.core.lengthBytesUTF8(s) + 1;
    const ptr = this.core._malloc(size);
    if (!ptr) throw new Error('poslab: out of memory');
    this.core.stringToUTF8(s, ptr, size);
    return ptr;
  }

  fail() {
    return new Error(this.core.UTF8ToString(this.message));
  }

  // Parses every field of config into a fresh heap config; returns it.
  configure(config) {
    if (config === null || typeof config !== 'object') {
      throw new Error('config: expected an object such as {sentence_a: "dog bites man"}');
    }
    const cfg = this.core._poslab_config_new();
    if (!cfg) throw new Error('poslab: out of memory');
    try {
      for (const [key, value] of Object.entries(config)) {
        if (key === 'full' || value === undefined || value === null) continue;
        const row = this.options.options.find((o) => o.json === key);
        if (!row) {
          throw new Error(`${JSON.stringify(key)} is not a config field; allowed: ` +
                          `${this.options.options.map((o) => o.json).join(', ')}, full`);
        }
        const text = optionText(row, value);
        const k = this.string(row.json);
        const v = this.string(text);
        try {
          if (this.core._poslab_config_set(cfg, k, v, this.message, MESSAGE_BYTES) !== 0) throw this.fail();
        } finally {
          this.core._free(k);
          this.core._free(v);
        }
      }
      return cfg;
    } catch (e) {
      this.core._poslab_config_free(cfg);
      throw e;
    }
  }

  // Runs the experiment; returns the CLI's JSON result as an object.
  // Model checkpoint runs on the checkpoint opened last (openCheckpoint).
  run(config = {}) {
    this.check();
    if (config?.model === 'checkpoint' && !this.ownsCheckpoint) return this.checkpointOpened().run(config);
    this.stepping = null; // the core ends a run in steps
    const cfg = this.configure(config);
    try {
      if (this.core._poslab_run(this.lab, cfg, this.message, MESSAGE_BYTES) !== 0) throw this.fail();
    } finally {
      this.core._poslab_config_free(cfg);
    }
    return this.collect(config);
  }

  // The same run in steps (poslab_run_begin/_step), for a caller that must
  // stay responsive while it computes: a generator whose first next()
  // checks the config and makes the draws, and each later one does one
  // bounded step (a sweep point, or one transformer block of one sentence);
  // the last returns run()'s result. To drop the run, stop calling next():
  // the lab's next call ends it, and keeps its draws if they are shared.
  *runSteps(config = {}) {
    this.check();
    if (config?.model === 'checkpoint' && !this.ownsCheckpoint) return yield* this.checkpointOpened().runSteps(config);
    const mine = {};
    this.stepping = mine;
    const cfg = this.configure(config);
    try {
      if (this.core._poslab_run_begin(this.lab, cfg, this.message, MESSAGE_BYTES) !== 0) throw this.fail();
    } finally {
      this.core._poslab_config_free(cfg); // the core keeps a copy
    }
    for (;;) {
      yield;
      if (this.stepping !== mine) throw new Error('poslab: this run was dropped: the lab has begun another since');
      const status = this.core._poslab_run_step(this.lab, this.message, MESSAGE_BYTES);
      if (status === 0) return this.collect(config);
      if (status !== RUNNING) throw this.fail();
    }
  }

  // The last run's result as run() gives it, for `config` as asked.
  collect(config) {
    const json = this.core._poslab_json(this.lab, JSON_NO_SWEEP);
    if (!json) throw new Error('poslab: out of memory');
    const result = JSON.parse(this.core.UTF8ToString(json));
    const count = config.sweep ? config.sweep.count : 0;
    if (count > 0) result.sweep = this.sweep(result.pairs, count);
    if (config.full) {
      // a checkpoint's width and heads are its own (not in its config)
      const dim = result.checkpoint?.n_embd ?? result.config.dim;
      const a = result.tokens_a ?? result.config.sentence_a, b = result.tokens_b ?? result.config.sentence_b;
      result.output_a = this.matrix(ARRAY.outputA, a.length, dim);
      result.output_b = this.matrix(ARRAY.outputB, b.length, dim);
      result.attention_a = this.matrix(ARRAY.attentionA, a.length, a.length);
      result.attention_b = this.matrix(ARRAY.attentionB, b.length, b.length);
      // every head, head 0 first (the JSON's attention_a is head 0); the
      // scores are before the softmax, null where the mask hides a word
      const heads = result.checkpoint?.n_head ?? result.config.heads;
      result.attention_heads_a = this.stack(ARRAY.attentionA, heads, a.length);
      result.attention_heads_b = this.stack(ARRAY.attentionB, heads, b.length);
      result.scores_heads_a = this.stack(ARRAY.scoresA, heads, a.length);
      result.scores_heads_b = this.stack(ARRAY.scoresB, heads, b.length);
    }
    return result;
  }

  // Rows of a double array of the last run, as JSON gives them (null for
  // a non-finite value). Views are made here, after the run: memory growth
  // detaches older ones.
  matrix(which, rows, cols) {
    const at = this.core._poslab_result_array(this.lab, which) >>> 3; // unsigned: a heap may pass 2 GiB
    const heap = this.core.HEAPF64;
    const out = new Array(rows);
    for (let i = 0; i < rows; i++) {
      const row = new Array(cols);
      for (let j = 0; j < cols; j++) {
        const x = heap[at + i * cols + j];
        row[j] = Number.isFinite(x) ? x : null;
      }
      out[i] = row;
    }
    return out;
  }

  // `count` n x n matrices stored one after another, as matrix() gives one.
  stack(which, count, n) {
    const all = this.matrix(which, count * n, n);
    return Array.from({ length: count }, (_, h) => all.slice(h * n, (h + 1) * n));
  }

  // The sinusoidal table's rows for positions first .. first+count-1 at
  // width dim (poslab_sinusoidal_table): what the scheme adds, at scale 1.
  sinusoidal(first, count, dim) {
    this.check();
    // C takes 32-bit ints: refuse what would be cut or wrapped on the way
    const { max_position: last, max_dim: maxDim } = this.options.limits;
    if (![first, count, dim].every(Number.isInteger) || first < 0 || count < 1 || first + count - 1 > last ||
        dim < 1 || dim > maxDim) {
      throw new Error(`sinusoidal: rows ${first} to ${first + count - 1} at dim ${dim}; allowed: positions from 0 ` +
                      `to ${last}, dim from 1 to ${maxDim}`);
    }
    const out = this.core._malloc(Math.max(1, count * dim) * 8);
    try {
      if (!out) throw new Error('poslab: out of memory');
      if (this.core._poslab_sinusoidal_table(first, count, dim, out) !== 0) {
        throw new Error(`sinusoidal: rows ${first} to ${first + count - 1} at dim ${dim}; allowed: ` +
                        `positions from 0 to ${this.options.limits.max_position}, dim from 1 to ${this.options.limits.max_dim}`);
      }
      const heap = this.core.HEAPF64;
      return Array.from({ length: count }, (_, p) => Array.from(heap.subarray((out >> 3) + p * dim, (out >> 3) + (p + 1) * dim)));
    } finally {
      this.core._free(out);
    }
  }

  // ALiBi's slope m for head `head` (0-based) of `heads` (poslab_alibi_slope).
  alibiSlope(head, heads) {
    // as the core answers a head that does not exist, before C's 32-bit ints could wrap it into one
    if (![head, heads].every(Number.isInteger) || heads < 1 || heads > this.options.limits.max_heads ||
        head < 0 || head >= heads) return NaN;
    return this.core._poslab_alibi_slope(head, heads);
  }

  // The sweep in the CLI's shape: row 0 of the core's arrays is the mean,
  // row 1 + i is pairs[i].
  sweep(pairs, count) {
    const [scales] = this.matrix(ARRAY.scales, 1, count);
    const cosine = this.matrix(ARRAY.cosine, 1 + pairs.length, count);
    const closeAt = this.core._poslab_result_array(this.lab, ARRAY.allclose) >>> 0;
    const close = this.core.HEAPU8;
    const points = (row) => cosine[row].map((c, t) => ({
      cosine_distance: c, allclose: close[closeAt + row * count + t] === 1,
    }));
    return {
      scales,
      mean: points(0),
      pairs: pairs.map((p, i) => (p.index_b === null ? [] : points(1 + i))),
    };
  }

  // Where allclose stops holding as the scale grows, for pair index `pair`
  // of sentence A (-1: the sentence mean): see poslab_threshold in
  // poslab.h. 0 if it fails already at lo, hi if it never fails.
  threshold(config, pair, { lo = 1e-12, hi = 1e3, relTol = 1e-3 } = {}) {
    this.check();
    this.stepping = null; // the core ends a run in steps
    const cfg = this.configure(config);
    const out = this.core._malloc(8);
    try {
      if (!out) throw new Error('poslab: out of memory');
      const st = this.core._poslab_threshold(this.lab, cfg, pair, lo, hi, relTol, out, this.message, MESSAGE_BYTES);
      if (st !== 0) throw this.fail();
      return this.core.HEAPF64[out >> 3]; // a fresh view: memory may have grown
    } finally {
      this.core._free(out);
      this.core._poslab_config_free(cfg);
    }
  }

  // The core's option table (poslab_options_json in poslab.h): limits,
  // schemes and one row per option with its kind, range, default, allowed
  // words and help. Parsed on first use and shared, so it is frozen.
  get options() {
    if (!this.optionsTable) {
      const json = this.core._poslab_options_json();
      if (!json) throw new Error('poslab: the option table does not fit its buffer');
      this.optionsTable = deepFreeze(JSON.parse(this.core.UTF8ToString(json)));
    }
    return this.optionsTable;
  }

  // Bytes of WebAssembly memory, for tests that watch for leaks.
  memoryBytes() {
    return this.core.HEAPF64.buffer.byteLength;
  }

  // Bytes of the heap in use (allocations and their headers), for tests
  // that watch for leaks: unlike memoryBytes() it goes down when memory is
  // freed. Still answers after dispose().
  heapBytesInUse() {
    return this.core._poslab_heap_bytes_in_use() >>> 0;
  }

  check() {
    if (!this.lab) throw new Error('poslab: this lab has been disposed');
  }

  // The checkpoint model runs in its own module, on the checkpoint opened last.
  checkpointOpened() {
    if (!this.opened || this.opened.disposed) {
      throw new Error('model: "checkpoint" runs on an opened checkpoint; allowed: await lab.openCheckpoint({files | url}) first');
    }
    return this.opened;
  }

  // Opens a checkpoint (docs/interfaces.md, "Checkpoints"): see
  // openCheckpoint below. It becomes the one lab.run({model: 'checkpoint'})
  // uses; its dispose() gives all of its memory back.
  async openCheckpoint(options = {}) {
    this.check();
    const ck = await openCheckpoint({ base: this.base, ...options });
    const earlier = this.opened;
    this.opened = ck;
    ck.onDispose = () => { if (this.opened === ck) this.opened = earlier?.disposed ? null : earlier; };
    return ck;
  }

  dispose() {
    if (!this.lab) return;
    this.core._poslab_destroy(this.lab);
    this.core._free(this.message);
    this.lab = 0;
    this.message = 0;
  }
}

// ---- checkpoints --------------------------------------------------------------
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
  if (!checkpointParts) {
    if (SINGLE_FILE) throw new Error('poslab: checkpoints need the site\'s poslab-checkpoint.wasm (not in the single file)');
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

// Where a checkpoint's files come from: name -> { size, read() } where
// read() gives the file's bytes in order, a chunk a call (null at the end).
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
  const folder = new URL(String(url).endsWith('/') ? String(url) : `${url}/`, globalThis.location?.href);
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
          const { value, done } = await reader.read();
          return done ? null : value;
        },
        cancel() { reader.cancel().catch(() => {}); },
      };
    },
  };
}

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
export async function openCheckpoint({ files, url, onProgress = () => {}, signal, maxBytes = Infinity,
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
    try {
      ck.call('_poslab_checkpoint_tokenizer', ck.ck, ck.text('vocab.json'), ...vocab, ck.text('merges.txt'), ...merges);
    } finally {
      ck.release();
    }
    const index = 'model.safetensors.index.json';
    let names = ['model.safetensors'];
    if (await source.has(index)) {
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
    const staging = core._malloc(chunkBytes) >>> 0;
    if (!staging) throw new Error('poslab: out of memory');
    try {
      for (const file of open) {
        const end = Number(core._poslab_checkpoint_file_end(ck.ck, file.index));
        let at = Number(core._poslab_checkpoint_file_next(ck.ck, file.index));
        loaded += at;
        let chunk = file.rest;
        while (at < end) {
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
    return this.lab.run({ ...config, model: 'checkpoint' });
  }

  *runSteps(config = {}) {
    this.alive();
    return yield* this.lab.runSteps({ ...config, model: 'checkpoint' });
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
    this.lab.dispose();
    this.ck = 0;
    this.core = null;
    this.onDispose?.();
  }
}
