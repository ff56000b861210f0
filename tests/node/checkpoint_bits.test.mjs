// The checkpoint module's bits: full runs of the three models trained here,
// and of a small checkpoint whose widths are not multiples of eight (C 12:
// the columns linear() leaves to its row loop), keep the SHA-256 recorded in
// tests/checkpoint_bits.json, so that a faster kernel that reorders a
// single addition fails here. (checkpoint.test.mjs holds the results to
// NumPy's within 1e-9; this holds them to what they were, bit for bit.)
//   POSLAB_WRITE_CHECKPOINT_BITS=1 node tests/node/checkpoint_bits.test.mjs
// records them instead (only when the numbers are meant to change);
// SITE_DIR runs another build of the site.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const { openCheckpoint } = await import(`${process.env.SITE_DIR ?? `${root}build/site`}/poslab.js`);
const RECORD = `${root}tests/checkpoint_bits.json`;
const odd = `${root}build/node-checkpoint-bits`;

const CASES = [
  { sentence_a: 'dog bites man . who bites ?', sentence_b: 'man bites dog . who bites ?' },
  { sentence_a: 'man bites dog . who is bitten ?', sentence_b: 'dog bites man . who is bitten ?', causal: false },
  { sentence_a: 'man bites dog', sentence_b: 'dog bites man', scale: 3, prefix_space: false },
  { sentence_a: 'dog', sentence_b: 'dog', scheme: 'none' },
];
const MODELS = [`${root}models/gpt`, `${root}models/nope`, `${root}models/bag`, `${odd}/odd`];

before(() => {
  mkdirSync(odd, { recursive: true });
  const made = spawnSync('/usr/bin/python3', ['-c', `
import os, sys
sys.path.insert(0, 'tests')
import numpy as np
import make_checkpoints as m
vocab, merges = m.learn_bpe(m.CORPUS, 80)
C, L, H, P, V = 12, 2, 3, 32, len(vocab)
t = m.gpt2_weights(np.random.RandomState(11), C, L, P, V)
d = os.path.join(sys.argv[1], 'odd')
os.makedirs(d, exist_ok=True)
m.write_tokenizer(d, vocab, merges)
m.write_safetensors(os.path.join(d, 'model.safetensors'), t, {k: 'F32' for k in t})
m.save_config(d, m.config(C, L, H, P, V))
`, odd], { cwd: root, encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
});

const name = (dir) => dir.slice(dir.lastIndexOf('/') + 1);

async function hashes() {
  const out = {};
  for (const dir of MODELS) {
    const ck = await openCheckpoint({ url: pathToFileURL(`${dir}/`).href });
    try {
      CASES.forEach((config, k) => {
        const result = ck.run({ ...config, full: true });
        out[`${name(dir)} ${k}`] = createHash('sha256').update(JSON.stringify(result)).digest('hex');
      });
    } finally {
      ck.dispose();
    }
  }
  return out;
}

test('the models trained here and a checkpoint of odd widths keep their recorded bits', async () => {
  const got = await hashes();
  if (process.env.POSLAB_WRITE_CHECKPOINT_BITS) {
    writeFileSync(RECORD, `${JSON.stringify({ about: 'SHA-256 of JSON.stringify(run({...config, full: true})) per model and case of tests/node/checkpoint_bits.test.mjs; recorded by linear() before its tiles', hashes: got }, null, 1)}\n`);
  }
  const { hashes: want } = JSON.parse(readFileSync(RECORD, 'utf8'));
  assert.equal(Object.keys(got).length, MODELS.length * CASES.length);
  const wrong = Object.keys(want).filter((k) => got[k] !== want[k]);
  assert.deepEqual(wrong, [], `${wrong.length} of ${Object.keys(want).length} runs changed their bits`);
});
