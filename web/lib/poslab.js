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
import { TRAINED_MODELS, FILES_MODEL, CHECKPOINT_MODEL } from './trained_models.js';

// The C functions this wrapper calls; tests check it against src/exports.json.
export const CORE_FUNCTIONS = [
  '_malloc', '_free',
  '_poslab_config_new', '_poslab_config_free', '_poslab_config_set',
  '_poslab_create', '_poslab_destroy', '_poslab_run', '_poslab_run_begin', '_poslab_run_step', '_poslab_share_sweep', '_poslab_sweep_pass',
  '_poslab_json', '_poslab_result_array',
  '_poslab_threshold', '_poslab_status_text', '_poslab_options_json', '_poslab_heap_bytes_in_use',
  '_poslab_sinusoidal_table', '_poslab_alibi_slope',
];

// poslab_pass's values, in order.
const SWEEP_PASSES = ['all', 'coarse', 'rest'];

// The checkpoint module's functions beyond CORE_FUNCTIONS; tests check it
// against src/exports_checkpoint.json. (Written without their common
// prefix: this file is part of what the page fetches at open.)
export const CHECKPOINT_FUNCTIONS = [
  'checkpoint_create', 'checkpoint_free', 'checkpoint_config', 'checkpoint_tokenizer', 'checkpoint_tokenizer_begin',
  'checkpoint_tokenizer_step', 'checkpoint_shards',
  'checkpoint_shard', 'safetensors_header_bytes', 'checkpoint_add_file', 'checkpoint_plan', 'checkpoint_allocate',
  'checkpoint_feed', 'checkpoint_file_next', 'checkpoint_file_end', 'checkpoint_finish', 'checkpoint_json',
  'use_checkpoint', 'checkpoint_tokens_json', 'threshold_begin', 'threshold_step',
].map((name) => `_poslab_${name}`);

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

// A threshold's pair as the core takes it (an int): what would become
// another number on the way (nothing, null, NaN, 1.5, '2') is refused.
function pairIndex(pair) {
  if (!Number.isInteger(pair)) throw new Error(`poslab: pair: ${String(pair)} is not -1 (the sentence mean) or a word's index`);
  return pair;
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
      if (typeof value === 'boolean' || [0, 1, '0', '1', 'true', 'false'].includes(value)) return String(value);
      throw new Error(`${key}: ${JSON.stringify(value)} is not a switch value; allowed: ${row.allowed}`);
    case 'sweep':
      return checkText(key, sweepText(value));
    default:
      if (typeof value === 'number' || typeof value === 'string') return checkText(key, String(value));
      throw new Error(`${key}: ${JSON.stringify(value)} is not ${row.kind === 'choice' ? `a ${row.name}` : 'a number'}; ` +
                      `allowed: ${row.allowed}`);
  }
}

// The page's names for its checkpoints (its links write model=gpt), typed
// where a model is asked for: said as what they are, as the CLI says them.
// The main module has no checkpoint code, so its table cannot.
function pageModel(key, name) {
  const trained = TRAINED_MODELS.includes(name);
  return key === 'model' && (trained || name === FILES_MODEL) ? new Error(`model: "${name}" is a checkpoint${trained ? ' trained here' : ''}` +
    `, not a model of its own; allowed: head, transformer, or checkpoint after lab.openCheckpoint() on ${trained ? `models/${name}/` : "GPT-2's files"}`) : null;
}

function sweepText(sweep) {
  if (sweep === undefined || sweep === null || sweep === false) return '';
  if (typeof sweep === 'string') return sweep; // the CLI's LO:HI:COUNT
  const numeric = (x) => typeof x === 'number' || (typeof x === 'string' && x.trim() !== '');
  if (typeof sweep !== 'object' || Array.isArray(sweep) || ![sweep.lo, sweep.hi, sweep.count].every(numeric)) {
    // ('1:10:3', true or [1, 10, 3] said "undefined:undefined:undefined" is not a valid sweep)
    throw new Error(`sweep: ${JSON.stringify(sweep)} is not a sweep; allowed: {lo, hi, count} or "LO:HI:COUNT"`);
  }
  return `${sweep.lo}:${sweep.hi}:${sweep.count}`;
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
        if (key === 'full' || key === 'packed' || value === undefined || value === null) continue;
        const row = this.options.options.find((o) => o.json === key);
        if (!row) {
          throw new Error(`${JSON.stringify(key)} is not a config field; allowed: ` +
                          `${this.options.options.map((o) => o.json).join(', ')}, full, packed`);
        }
        const text = optionText(row, value);
        const k = this.string(row.json);
        const v = this.string(text);
        try {
          if (this.core._poslab_config_set(cfg, k, v, this.message, MESSAGE_BYTES) !== 0) throw pageModel(key, text) ?? this.fail();
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
    const ck = this.checkpointFor(config);
    if (ck) return ck.run(config);
    this.stepping = null; // the core ends a run in steps
    const cfg = this.configure(config);
    try {
      if (this.core._poslab_run(this.lab, cfg, this.message, MESSAGE_BYTES) !== 0) throw this.fail();
    } finally {
      this.core._poslab_config_free(cfg);
    }
    return this.collect(config);
  }

  // From now on this lab's runs compute only the sweep points t with
  // t % shares === share (poslab_share_sweep): `shares` labs in as many
  // workers compute one sweep between them, and mergeShares (app/sweep.js)
  // puts their points together, equal to one lab's sweep to the bit.
  // (0, 1) computes every point again.
  shareSweep(share, shares) {
    this.check();
    if (!Number.isInteger(share) || !Number.isInteger(shares) || this.core._poslab_share_sweep(this.lab, share, shares) !== 0) {
      throw new Error(`shareSweep: share ${share} of ${shares}; allowed: integers with 0 <= share < shares`);
    }
  }

  // From now on this lab's runs compute one pass of a sweep's points
  // (poslab_sweep_pass): 'all' (the default), 'coarse' (the points t with
  // t % stride === 0) or 'rest' (the others). A coarse first curve taken
  // from the sweep itself and then the rest compute each point once;
  // shareSweep's shares split the points of the pass (its k-th point goes
  // to share k % shares), and shareOf (app/sweep.js) says whose a point is.
  sweepPass(pass, stride = 0) {
    this.check();
    const code = SWEEP_PASSES.indexOf(pass);
    if (code < 0 || !Number.isInteger(stride) || this.core._poslab_sweep_pass(this.lab, code, stride) !== 0) {
      throw new Error(`sweepPass: ${JSON.stringify(pass)} with stride ${stride}; allowed: 'all', or 'coarse' or 'rest' with an integer stride of 2 or more`);
    }
  }

  // The same run in steps (poslab_run_begin/_step), for a caller that must
  // stay responsive while it computes: a generator whose first next()
  // checks the config and makes the draws, and each later one does one
  // bounded step (the head model for one sentence, one block of one
  // sentence of the transformer, a third of one of a checkpoint's; of the
  // run, or of a point of its sweep);
  // the last returns run()'s result. To drop the run, stop calling next():
  // the lab's next call ends it, and keeps its draws if they are shared.
  *runSteps(config = {}) {
    this.check();
    const ck = this.checkpointFor(config);
    if (ck) return yield* ck.runSteps(config);
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
      this.check(); // (disposed between two steps: its core must not be called)
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
    // (the core took the sweep: a text's third part is its count)
    const count = !config.sweep ? 0 : Number(typeof config.sweep === 'string' ? config.sweep.split(':')[2] : config.sweep.count);
    if (count > 0) result.sweep = config.packed ? this.packedSweep(result.pairs, count) : this.sweep(result.pairs, count);
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

  // The same sweep as typed arrays (`packed`): a sweep of 16 words is some
  // 2,000 small objects, which a page that keeps a few sweeps copies at
  // every young-generation collection (at 16 words under 2x throttling,
  // 3-15 ms pauses in the middle of a keystroke), and which a worker must
  // flatten again to post. Row 0 of cosine and close is the mean, row 1 + k
  // pairs[k]; a non-finite distance is NaN; empty[r] marks a word with no
  // partner (its row holds nothing).
  packedSweep(pairs, count) {
    const rows = 1 + pairs.length;
    const heap = this.core.HEAPF64;
    const scalesAt = this.core._poslab_result_array(this.lab, ARRAY.scales) >>> 3;
    const cosineAt = this.core._poslab_result_array(this.lab, ARRAY.cosine) >>> 3;
    const closeAt = this.core._poslab_result_array(this.lab, ARRAY.allclose) >>> 0;
    const cosine = heap.slice(cosineAt, cosineAt + rows * count);
    for (let i = 0; i < cosine.length; i++) if (!Number.isFinite(cosine[i])) cosine[i] = NaN;
    const empty = [false, ...pairs.map((p) => p.index_b === null)];
    const close = this.core.HEAPU8.slice(closeAt, closeAt + rows * count);
    empty.forEach((e, r) => { if (e) { cosine.fill(NaN, r * count, (r + 1) * count); close.fill(0, r * count, (r + 1) * count); } });
    return { packed: true, scales: heap.slice(scalesAt, scalesAt + count), cosine, close, empty };
  }

  // Where allclose stops holding as the scale grows, for pair index `pair`
  // of sentence A (-1: the sentence mean): see poslab_threshold in
  // poslab.h. 0 if it fails already at lo, hi if it never fails.
  threshold(config, pair, range = {}) {
    this.check();
    const ck = this.checkpointFor(config);
    if (ck) return ck.threshold(config, pair, range);
    const { lo = 1e-12, hi = 1e3, relTol = 1e-3 } = range;
    this.stepping = null; // the core ends a run in steps
    const cfg = this.configure(config);
    const out = this.core._malloc(8);
    try {
      if (!out) throw new Error('poslab: out of memory');
      const st = this.core._poslab_threshold(this.lab, cfg, pairIndex(pair), lo, hi, relTol, out, this.message, MESSAGE_BYTES);
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

  // The checkpoint model runs in its own module, on the checkpoint opened
  // last: that checkpoint for a config of model checkpoint, else null.
  checkpointFor(config) {
    if (config?.model !== CHECKPOINT_MODEL || this.ownsCheckpoint) return null;
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

  // A second lab in this one's copy of the core: its own config, draws and
  // results in the same module and memory, with no second download,
  // compile or instance. What runs on one leaves the other's draws alone
  // (the page calibrates on one without making its own lab draw the
  // state shown again). Each is disposed on its own.
  sibling() {
    this.check();
    const lab = new Lab(this.core, this.simd);
    lab.base = this.base;
    return lab;
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
// The code that opens checkpoints (web/lib/checkpoints.js) is fetched with the
// first one opened: most students never open one, and the page at open
// stays within its weight.

const CHECKPOINT_CODE = './checkpoints.js';

export async function openCheckpoint(options = {}) {
  const wrapper = { Lab, MESSAGE_BYTES, NODE_FS, checkText, pairIndex, SINGLE_FILE };
  // The single file carries this code, the checkpoint module and the
  // models trained here (web/dist/single_file.mjs), unread until asked for.
  if (SINGLE_FILE) return (await SINGLE_FILE.checkpointCode()).openCheckpoint(options, wrapper);
  const code = CHECKPOINT_CODE; // named through a variable: bundlers leave the import to run time
  return (await import(code)).openCheckpoint(options, wrapper);
}
