// poslab.d.ts - TypeScript declarations for poslab.js, written by hand from
// docs/interfaces.md ("JavaScript wrapper"), which is the contract; the npm
// package carries this file. tests/node/package.test.mjs checks that every
// member declared here exists on a lab and that docs/interfaces.md's
// members are all declared.

/** A scheme of positional information; `none` runs attention without it. */
/** `learned`: a checkpoint's own position table (model checkpoint only). */
export type Scheme = 'none' | 'random' | 'sinusoidal' | 'rope' | 'alibi' | 'learned';
export type Model = 'head' | 'transformer' | 'checkpoint';

/** A sweep of the magnitude: `count` values from `lo` to `hi` (the CLI's LO:HI:COUNT). */
export interface Sweep {
  lo: number;
  hi: number;
  count: number;
}

/**
 * What `lab.run` and `lab.threshold` take: the JSON `config` keys plus
 * `sweep`, `full` and `packed`. A field left out, `undefined` or `null` keeps its
 * default. Numbers may be given as strings holding one; every value goes to
 * the core's own parser, so an invalid one throws the CLI's words.
 */
/** A switch: a boolean, or the CLI's words for one. */
export type Switch = boolean | 'true' | 'false' | 0 | 1 | '0' | '1';

export interface Config {
  /** a sentence (split as the CLI splits it) or its words */
  sentence_a?: string | string[];
  sentence_b?: string | string[];
  dim?: number | string;
  seed?: number | string;
  scheme?: Scheme;
  scale?: number | string;
  causal?: Switch;
  rtol?: number | string;
  atol?: number | string;
  offset_a?: number | string;
  offset_b?: number | string;
  model?: Model;
  heads?: number | string;
  layers?: number | string;
  weight_std?: number | string;
  /** or the CLI's text "LO:HI:COUNT" */
  sweep?: Sweep | string | null | false;
  /** add the outputs, attention weights and every head's weights and scores */
  full?: boolean;
  /** the sweep as typed arrays (PackedSweep) instead of objects */
  packed?: boolean;
}

/** allclose, max |a - b| and 1 - cos(a, b) of two vectors. */
export interface Comparison {
  allclose: boolean;
  max_abs_diff: number | null;
  cosine_distance: number | null;
}

/** One word of sentence A; without a partner in B, only word, index_a and index_b (null). */
export interface Pair extends Partial<Comparison> {
  word: string;
  index_a: number;
  index_b: number | null;
}

/**
 * A sweep with `packed`: row 0 of `cosine` and `close` is the mean, row
 * 1 + k is pairs[k], `count` (scales.length) values each; NaN where the
 * distance is not finite, and all NaN in a row whose `empty` is true (a
 * word without a partner).
 */
export interface PackedSweep {
  packed: true;
  scales: Float64Array;
  cosine: Float64Array;
  /** 1 where allclose holds, else 0 */
  close: Uint8Array;
  empty: boolean[];
}

export interface SweepPoint {
  cosine_distance: number | null;
  allclose: boolean;
}

/** Rows of numbers; null where the core has a non-finite value (a masked score). */
export type Matrix = (number | null)[][];

/** The CLI's JSON output as an object (docs/interfaces.md, "JSON output"). */
export interface Result {
  config: {
    sentence_a: string[];
    sentence_b: string[];
    scheme: Scheme;
    scale: number;
    causal: boolean;
    rtol: number;
    atol: number;
    offset_a: number;
    offset_b: number;
    model: Model;
    /** these five are not in a checkpoint's run, which has checkpoint and prefix_space instead */
    dim?: number;
    seed?: number;
    heads?: number;
    layers?: number;
    weight_std?: number;
    checkpoint?: string;
    prefix_space?: boolean;
  };
  pairs: Pair[];
  unpaired_b: number[];
  mean: Comparison;
  baseline: Comparison & { cosine_similarity: number | null };
  permutation: boolean;
  /** only with model 'transformer': the residual stream after each block */
  layers?: { mean: Comparison; pairs: (Comparison | null)[] }[];
  /** only with a sweep; pairs[k] is [] for a word without a partner */
  sweep?: { scales: number[]; mean: SweepPoint[]; pairs: SweepPoint[][] } | PackedSweep;
  /** the rest only with `full` */
  output_a?: Matrix;
  output_b?: Matrix;
  attention_a?: Matrix;
  attention_b?: Matrix;
  attention_heads_a?: Matrix[];
  attention_heads_b?: Matrix[];
  scores_heads_a?: Matrix[];
  scores_heads_b?: Matrix[];
}

/** One row of the core's option table. */
export interface OptionRow {
  name: string;
  json: string;
  kind: 'text' | 'integer' | 'number' | 'choice' | 'switch' | 'sweep';
  min?: number;
  max?: number | null;
  default?: string | number | boolean | null;
  values?: string[];
  allowed: string;
  metavar: string;
  help: string;
  echo: boolean;
}

export interface Options {
  readonly limits: Readonly<{
    max_tokens: number;
    max_token_bytes: number;
    max_dim: number;
    max_sweep: number;
    max_offset: number;
    max_heads: number;
    max_position: number;
    max_scale: number;
  }>;
  readonly schemes: readonly Readonly<{ name: Scheme; default_scale: number }>[];
  readonly options: readonly Readonly<OptionRow>[];
}

export interface Lab {
  /** the core's option table, parsed once and frozen */
  readonly options: Options;
  /** which build runs: true for the SIMD module, false for the fallback */
  readonly simd: boolean;
  /** runs the experiment; throws an Error with the CLI's words for an invalid config */
  /** (with model 'checkpoint', the checkpoint opened last, and CheckpointConfig's keys) */
  run(config?: CheckpointConfig): Result;
  /** the same run in bounded steps (the head for one sentence, or one transformer block of one sentence, each): the first next()
   *  checks the config and draws, the last returns run()'s result; a later run, runSteps or threshold
   *  drops it */
  runSteps(config?: CheckpointConfig): Generator<undefined, Result, undefined>;
  /** later runs compute only the sweep points t with t % shares === share, so that labs in as many
   *  workers compute one sweep between them; (0, 1) computes every point */
  shareSweep(share: number, shares: number): void;
  /** later runs compute one pass of a sweep's points: all (the default), the coarse ones (t % stride === 0) or
   *  the rest; shares then split the pass's points */
  sweepPass(pass: 'all' | 'coarse' | 'rest', stride?: number): void;
  /** the magnitude where allclose stops holding for pairs[pair] (-1: the mean) */
  threshold(config: CheckpointConfig, pair: number, range?: { lo?: number; hi?: number; relTol?: number }): number;
  /** rows first .. first + count - 1 of the sinusoidal table at width dim */
  sinusoidal(first: number, count: number, dim: number): number[][];
  /** ALiBi's slope for head `head` (from 0) of `heads`; NaN out of range */
  alibiSlope(head: number, heads: number): number;
  /** bytes of WebAssembly memory */
  memoryBytes(): number;
  /** bytes of the core's heap in use */
  heapBytesInUse(): number;
  /** opens a checkpoint in the checkpoint module; run({model: 'checkpoint'}) then runs on it */
  openCheckpoint(options: OpenCheckpointOptions): Promise<Checkpoint>;
  /** another lab in this one's copy of the core (the same module and memory): its own draws and
   *  results, untouched by this one's runs; disposed on its own */
  sibling(): Lab;
  /** frees the core's memory; run and threshold throw afterwards */
  dispose(): void;
}

/** Where a checkpoint comes from, and how its loading is watched (docs/interfaces.md, "Checkpoints"). */
export interface OpenCheckpointOptions {
  /** File objects, or file name -> bytes */
  files?: Iterable<File> | Record<string, Blob | ArrayBuffer | Uint8Array>;
  /** the checkpoint folder's URL (same origin), streamed */
  url?: string | URL;
  /** 'planned' once (bytesNeeded, before any large allocation), then 'loading' as the data arrives */
  onProgress?: (event: { phase: 'planned'; bytesNeeded: number } | { phase: 'loading'; loaded: number; total: number }) => void;
  signal?: AbortSignal;
  /** refuse a checkpoint whose weights need more bytes */
  maxBytes?: number;
  chunkBytes?: number;
  base?: string | URL;
}

/** A run of model checkpoint: the checkpoint module's option table adds two keys. */
export interface CheckpointConfig extends Config {
  /** a space before each sentence before tokenizing (default true) */
  prefix_space?: Switch;
  /** the checkpoint's name, echoed in the result's config */
  checkpoint?: string;
}

/** An opened checkpoint: runs of model checkpoint on it. */
export interface Checkpoint {
  /** the JSON's "checkpoint" object: n_embd, n_layer, n_head, n_positions, vocab_size, dtype, parameters, ... */
  readonly info: Record<string, number | string | boolean>;
  readonly bytesNeeded: number;
  run(config?: CheckpointConfig): Result & Record<string, unknown>;
  /** the same run in bounded steps (a third of a block of one sentence each, then the next tokens' steps) */
  runSteps(config?: CheckpointConfig): Generator<undefined, Result & Record<string, unknown>, undefined>;
  /** lab.threshold on this checkpoint */
  threshold(config: CheckpointConfig, pair: number, range?: { lo?: number; hi?: number; relTol?: number }): number;
  /** the same search in bounded steps (a third of a block of one sentence each); the last returns threshold()'s number to the
   *  bit; a later runSteps or thresholdSteps drops it */
  thresholdSteps(config: CheckpointConfig, pair: number, range?: { lo?: number; hi?: number; relTol?: number }):
    Generator<undefined, number, undefined>;
  /** GPT-2's tokens of text */
  tokenize(text: string, options?: { prefixSpace?: boolean }): { id: number; text: string }[];
  /** frees it and drops its module instance */
  dispose(): void;
}

/** A checkpoint opened on a module instance of its own (lab.openCheckpoint without a lab). */
export function openCheckpoint(options: OpenCheckpointOptions): Promise<Checkpoint>;

/** The checkpoint module's functions beyond CORE_FUNCTIONS (src/exports_checkpoint.json). */
export const CHECKPOINT_FUNCTIONS: readonly string[];

export interface CreateLabOptions {
  /** which module to load: default, SIMD where the engine has it; false forces the fallback */
  simd?: boolean;
  /** the folder the .wasm files are read from; default, the folder of poslab.js */
  base?: string | URL;
}

/** A lab with its own core instance and memory. */
export function createLab(options?: CreateLabOptions): Promise<Lab>;

/** Whether this engine runs WebAssembly SIMD (what createLab picks by). */
export function simdSupported(): boolean;

/** The C functions the wrapper calls (src/exports.json). */
export const CORE_FUNCTIONS: readonly string[];
