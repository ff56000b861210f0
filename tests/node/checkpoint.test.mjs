// Checkpoints in WebAssembly (docs/interfaces.md, "Checkpoints"): the
// wrapper loads the test checkpoints of tests/make_checkpoints.py from
// bytes, in every layout, and agrees with the NumPy float64 reference
// (tests/checkpoint_reference.py) to 1e-9, as the native CLI does; bad
// files reject with the CLI's line; loading reports its memory before it
// takes it, and can be cancelled.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { spawnSync, execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { near } from '../near.mjs';
import { passSteps, nextSteps } from '../checkpoint_steps.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const dir = `${root}build/node-checkpoints`;
const { createLab, openCheckpoint, CHECKPOINT_FUNCTIONS } = await import(`${root}build/site/poslab.js`);
let cases;

before(() => {
  mkdirSync(dir, { recursive: true });
  for (const args of [['tests/make_checkpoints.py', dir], ['tests/checkpoint_reference.py', '--cases', dir, `${dir}/cases.json`]]) {
    const done = spawnSync('/usr/bin/python3', args, { cwd: root, encoding: 'utf8' });
    assert.equal(done.status, 0, done.stderr);
  }
  cases = JSON.parse(readFileSync(`${dir}/cases.json`, 'utf8'));
});

// A folder's files as the page would hand them over: Blobs by name.
const filesOf = (layout) => Object.fromEntries(readdirSync(`${dir}/${layout}`)
  .map((name) => [name, new Blob([readFileSync(`${dir}/${layout}/${name}`)])]));

// NumPy's answer within the lab's tolerance: 1e-9 relative or 1e-12 absolute.
function agree(got, want, where, errors) {
  if (want === null || typeof want !== 'object') {
    if (typeof want === 'number') { // ids too: distinct ones differ by far more
      if (!(typeof got === 'number' && near(got, want))) {
        errors.push(`${where}: ${got}; NumPy ${want}`);
      }
    } else if (got !== want) errors.push(`${where}: ${JSON.stringify(got)}; NumPy ${JSON.stringify(want)}`);
    return;
  }
  if (Array.isArray(want) && (!Array.isArray(got) || got.length !== want.length)) {
    errors.push(`${where}: ${JSON.stringify(got)?.slice(0, 80)}; NumPy has ${want.length} items`);
    return;
  }
  for (const [k, v] of Object.entries(want)) agree(got?.[k], v, `${where}.${k}`, errors);
}

function configOf(c) {
  const { a, b, ...rest } = c;
  return { ...rest, ...(a && { sentence_a: a }), ...(b && { sentence_b: b }) };
}

test('the wrapper and the checkpoint module export the same list (src/exports_checkpoint.json)', () => {
  const listed = JSON.parse(readFileSync(`${root}src/exports_checkpoint.json`, 'utf8'));
  assert.deepEqual([...CHECKPOINT_FUNCTIONS].sort(), [...listed].sort());
});

test('every layout, every case: WebAssembly agrees with NumPy to 1e-9', async () => {
  const byLayout = Map.groupBy ? Map.groupBy(cases, (c) => c.layout) : cases.reduce((m, c) => m.set(c.layout, [...(m.get(c.layout) ?? []), c]), new Map());
  let runs = 0;
  for (const [layout, list] of byLayout) {
    const ck = await openCheckpoint({ files: filesOf(layout) });
    try {
      for (const { config, numpy } of list) {
        const errors = [];
        agree(ck.run(configOf(config)), numpy, `${layout} ${JSON.stringify(config)}`, errors);
        assert.deepEqual(errors.slice(0, 5), []);
        runs++;
      }
    } finally {
      ck.dispose();
    }
  }
  assert.equal(runs, 35);
});

// GPT-2's vocabulary (50,257 tokens): the next tokens of a run in steps
// take 13 steps of logits a sentence and one to rank them, and give the
// one-call run's tokens and probabilities, which are the CLI's.
test('GPT-2\'s next tokens go 4096 tokens a step, with the bits of the one-call run and the CLI', async () => {
  const { checkpoint: made } = await import('../browser/gpt2_files.mjs');
  const folder = made('gpt2-mini');
  const lab = await createLab();
  const ck = await lab.openCheckpoint({ url: pathToFileURL(`${folder}/`).href });
  try {
    const config = { model: 'checkpoint', sentence_a: 'dog bites man', sentence_b: 'man bites dog', scale: 0.7 };
    const whole = lab.run(config);
    const steps = lab.runSteps(config);
    let r;
    let count = 0;
    for (r = steps.next(); !r.done; r = steps.next()) count++;
    assert.deepEqual(r.value, whole);
    assert.equal(ck.info.vocab_size, 50257);
    assert.equal(nextSteps(ck), 13 + 1);
    assert.equal(count, 1 + 2 * passSteps(ck) + 2 * nextSteps(ck) - 1);
    const cli = JSON.parse(spawnSync(`${root}build/native/poslab`, ['--model', 'checkpoint', '--checkpoint', folder, '--json',
      '--a', config.sentence_a, '--b', config.sentence_b, '--scale', '0.7'], { encoding: 'utf8' }).stdout);
    for (const side of ['next_a', 'next_b']) {
      assert.equal(whole[side].length, 5);
      assert.deepEqual(whole[side].map((t) => t.id), cli[side].map((t) => t.id), side);
      whole[side].forEach((t, i) => assert.ok(Math.abs(t.probability - cli[side][i].probability) <= 1e-12, `${side}[${i}]`));
    }
  } finally {
    ck.dispose();
    lab.dispose();
  }
});

// A File's bytes are read into one buffer again and again (a BYOB reader),
// so each chunk is overwritten by the next read: read in chunks of 100
// bytes (headers, merges and tensors across many of them), every byte must
// still land where one chunk of a megabyte puts it.
test('read in small chunks into one reused buffer, a checkpoint is the one read whole', async () => {
  const whole = await openCheckpoint({ files: filesOf('tiny-f32') });
  const pieces = await openCheckpoint({ files: filesOf('tiny-f32'), chunkBytes: 100 });
  try {
    const config = { sentence_a: 'dog bites man', sentence_b: 'man bites dog', scale: 0.5 };
    assert.deepEqual(pieces.run(config), whole.run(config));
    assert.deepEqual(pieces.tokenize('the dog bites the man'), whole.tokenize('the dog bites the man'));
  } finally {
    whole.dispose();
    pieces.dispose();
  }
});

// `blob` as a file whose stream gives its first `first` bytes, then never
// answers, the first `times` times it is streamed (a read Chromium once
// left waiting for good).
function stalling(blob, { first = 0, times = 1 } = {}) {
  const file = new Blob([blob]);
  let left = times;
  file.stream = function () {
    if (left-- <= 0) return Blob.prototype.stream.call(this);
    let given = !first;
    return new ReadableStream({
      async pull(controller) {
        if (given) return new Promise(() => {});
        given = true;
        controller.enqueue(new Uint8Array(await blob.slice(0, first).arrayBuffer()));
      },
    });
  };
  return file;
}

test('a file whose stream stops answering is read again from where it stood; one that never answers fails with a line', async () => {
  const { STALLED_READ_MS } = await import(`${root}build/site/checkpoints.js`);
  const files = filesOf('tiny-f32');
  const whole = await openCheckpoint({ files });
  const started = performance.now();
  const [first, middle, never] = await Promise.allSettled([
    openCheckpoint({ files: { ...files, 'config.json': stalling(files['config.json']) } }),
    openCheckpoint({ files: { ...files, 'model.safetensors': stalling(files['model.safetensors'], { first: 1000 }) }, chunkBytes: 4096 }),
    openCheckpoint({ files: { ...files, 'vocab.json': stalling(files['vocab.json'], { times: Infinity }) } }),
  ]);
  const waited = performance.now() - started;
  try {
    const config = { sentence_a: 'dog bites man', sentence_b: 'man bites dog', scale: 0.5 };
    assert.equal(first.status, 'fulfilled', first.reason?.message);
    assert.equal(middle.status, 'fulfilled', middle.reason?.message);
    assert.deepEqual(first.value.run(config), whole.run(config));
    assert.deepEqual(middle.value.run(config), whole.run(config));
    assert.equal(never.reason?.message, `vocab.json: reading it stopped (nothing came for ${STALLED_READ_MS / 1000} s, 3 times); choose the files again`);
    assert.ok(waited >= 3 * STALLED_READ_MS - 100 && waited < 3 * STALLED_READ_MS + 5000, `${waited} ms`);
  } finally {
    whole.dispose();
    first.value?.dispose();
    middle.value?.dispose();
  }
});

test('a run in steps gives run()\'s result; lab.run({model: "checkpoint"}) runs the opened one', async () => {
  const lab = await createLab();
  assert.throws(() => lab.run({ model: 'checkpoint' }), /model: "checkpoint" runs on an opened checkpoint/);
  const ck = await lab.openCheckpoint({ files: filesOf('tiny-f32') });
  try {
    const whole = lab.run({ model: 'checkpoint', scale: 0.5 });
    const steps = lab.runSteps({ model: 'checkpoint', scale: 0.5 });
    let r;
    let count = 0;
    for (;;) {
      r = steps.next();
      if (r.done) break;
      count++;
    }
    assert.deepEqual(r.value, whole);
    // one yield after the draws, then each sentence's pass (2 blocks here),
    // then each sentence's next tokens (its logits, 4096 tokens of the
    // vocabulary a step: one here; then their ranking), the last returning
    assert.equal(ck.info.vocab_size <= 4096, true);
    assert.equal(count, 1 + 2 * 3 * 2 + 2 * 2 - 1);
    assert.equal(count, 1 + 2 * passSteps(ck) + 2 * nextSteps(ck) - 1);
    assert.deepEqual(ck.tokenize('dog bites man').map((t) => t.id), whole.tokens_a.map((t) => t.id));
    assert.equal(ck.tokenize('dog', { prefixSpace: false })[0].text, 'do');
    // the one head still runs on the main module meanwhile
    assert.equal(lab.run({ scheme: 'none' }).pairs[2].allclose, true);
    const full = ck.run({ full: true });
    assert.equal(full.output_a.length, 3);
    assert.equal(full.output_a[0].length, 16);
    assert.equal(full.attention_heads_a.length, 4);
  } finally {
    ck.dispose();
    lab.dispose();
  }
  assert.throws(() => ck.run({}), /disposed/);
  const again = await createLab();
  assert.throws(() => again.run({ model: 'checkpoint' }), /openCheckpoint/);
  again.dispose();
});

test('loading from a URL streams: the memory is known before it is taken, progress reaches the end', async () => {
  const events = [];
  const ck = await openCheckpoint({ url: pathToFileURL(`${dir}/tiny-sharded/`).href, chunkBytes: 4096,
    onProgress: (e) => events.push(e) });
  try {
    assert.equal(events[0].phase, 'planned');
    // 11,904 float32 weights and two blocks' 12 pointers
    assert.equal(events[0].bytesNeeded, 11904 * 4 + 2 * 48);
    const loads = events.filter((e) => e.phase === 'loading');
    assert.ok(loads.length > 3, `${loads.length} progress events`);
    assert.equal(loads.at(-1).loaded, loads.at(-1).total);
    assert.equal(ck.info.dtype, 'F32');
    assert.equal(ck.run({}).pairs.length, 3);
  } finally {
    ck.dispose();
  }
});

test('under Node a url may be a path, from the working directory or absolute', async () => {
  const want = JSON.stringify((await (async () => {
    const ck = await openCheckpoint({ url: pathToFileURL(`${dir}/tiny-sharded/`).href });
    try { return ck.run({}); } finally { ck.dispose(); }
  })()));
  const relative = path.relative(process.cwd(), `${dir}/tiny-sharded`);
  for (const url of [`${dir}/tiny-sharded`, relative, `./${relative}/`]) {
    const ck = await openCheckpoint({ url });
    try { assert.equal(JSON.stringify(ck.run({})), want, url); } finally { ck.dispose(); }
  }
});

test('cancel and maxBytes stop a load before or while it takes memory', async () => {
  const controller = new AbortController();
  await assert.rejects(openCheckpoint({ files: filesOf('tiny-f32'), chunkBytes: 1024, signal: controller.signal,
    onProgress: (e) => { if (e.phase === 'loading') controller.abort(); } }), { name: 'AbortError' });
  await assert.rejects(openCheckpoint({ files: filesOf('tiny-f32'), maxBytes: 1000 }),
    /checkpoint: its weights need 47712 bytes; allowed: at most 1000/);
});

test('a bad file rejects with the CLI\'s line', async () => {
  const files = filesOf('tiny-f16');
  const config = JSON.parse(await files['config.json'].text());
  files['config.json'] = new Blob([JSON.stringify({ ...config, n_positions: 64 })]);
  await assert.rejects(openCheckpoint({ files }),
    { message: 'model.safetensors: tensor wpe.weight: shape [32, 16]; expected [64, 16] from config.json' });
  const bytes = readFileSync(`${dir}/tiny-f16/model.safetensors`);
  files['config.json'] = new Blob([JSON.stringify(config)]);
  files['model.safetensors'] = new Blob([bytes.subarray(0, bytes.length - 10)]);
  await assert.rejects(openCheckpoint({ files }), /model\.safetensors: tensor .*data_offsets .* leave the data's/);
  // config.json before vocab.json here (the CLI reads them the other way):
  // an id past vocab_size is said when the second comes in
  files['model.safetensors'] = new Blob([bytes]);
  const vocab = JSON.parse(await files['vocab.json'].text());
  files['vocab.json'] = new Blob([JSON.stringify({ ...vocab, zzqq: config.vocab_size })]);
  await assert.rejects(openCheckpoint({ files }),
    { message: `vocab.json: id ${config.vocab_size}; expected ids below config.json's vocab_size ${config.vocab_size}` });
});

// The limit on where a sentence starts, in words both callers read: the
// CLI's option is --offset-b, the wrapper's key offset_b.
test('a sentence past the checkpoint\'s positions: the wrapper\'s message names no CLI option', async () => {
  const ck = await openCheckpoint({ url: `${dir}/tiny-f32` });
  try {
    assert.throws(() => ck.run({ offset_b: 30 }), {
      message: 'b: 3 tokens from position 30 pass the checkpoint\'s 32 positions; allowed: at most 2 tokens from position 30' });
    assert.throws(() => ck.run({ offset_b: 40 }), /allowed: a first position below 32$/);
  } finally {
    ck.dispose();
  }
});

test('the page\'s model names (model: "gpt", ...) say they are checkpoints, and the advice works', async () => {
  const lab = await createLab();
  try {
    for (const name of ['gpt', 'nope', 'bag']) {
      assert.throws(() => lab.run({ model: name }), {
        message: `model: "${name}" is a checkpoint trained here, not a model of its own; allowed: head, transformer, ` +
          `or checkpoint after lab.openCheckpoint() on models/${name}/` });
    }
    assert.throws(() => lab.run({ model: 'gpt2' }), {
      message: 'model: "gpt2" is a checkpoint, not a model of its own; allowed: head, transformer, or checkpoint after ' +
        'lab.openCheckpoint() on GPT-2\'s files' });
    assert.throws(() => lab.run({ model: 'gpt3' }), { message: 'model: "gpt3" is not a model; allowed: head, transformer' });
    // what it says to do: the site's folder, then model: 'checkpoint'; the CLI's figures
    const ck = await lab.openCheckpoint({ url: `${root}build/site/models/gpt/` });
    try {
      const got = lab.run({ model: 'checkpoint', sentence_a: 'dog bites man', sentence_b: 'man bites dog' });
      const cli = JSON.parse(execFileSync(`${root}build/native/poslab`, ['--model', 'checkpoint', '--checkpoint',
        `${root}models/gpt/`, '--a', 'dog bites man', '--b', 'man bites dog', '--json'], { encoding: 'utf8' }));
      assert.ok(got.mean.cosine_distance > 0, JSON.stringify(got.mean));
      assert.equal(got.mean.cosine_distance, cli.mean.cosine_distance);
      assert.deepEqual(got.pairs.map((p) => p.allclose), cli.pairs.map((p) => p.allclose));
      assert.deepEqual(got.pairs.map((p) => p.word), [" dog", " bites", " man"]);
    } finally {
      ck.dispose();
    }
  } finally {
    lab.dispose();
  }
});
