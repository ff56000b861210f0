// Shared by the tests of GPT-2 from the student's files (model_files*.test.mjs)
// and its bench: GPT-2-shaped checkpoints with random weights and GPT-2's real
// vocabulary (tests/make_checkpoints.py), made once into build/test-checkpoints/
// and made again when the script that makes them changes; the CLI's answer
// for a folder; a copy of a folder with one file cut short. Not a test file
// itself (make test-browser runs *.test.mjs).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './harness.mjs';

export const FILES = ['config.json', 'model.safetensors', 'vocab.json', 'merges.txt'];
const SCRIPT = path.join(ROOT, 'tests', 'make_checkpoints.py');
const OUT = path.join(ROOT, 'build', 'test-checkpoints');

// The folder of checkpoint `name` (gpt2-mini: 13 MB; gpt2-small: 548 MB,
// GPT-2 small's shapes), made if missing or older than the script.
export function checkpoint(name = 'gpt2-mini') {
  const folder = path.join(OUT, name);
  const stamp = path.join(folder, '.made');
  if (!existsSync(stamp) || statSync(stamp).mtimeMs < statSync(SCRIPT).mtimeMs) {
    const flag = { 'gpt2-mini': '--gpt2-mini', 'gpt2-small': '--gpt2' }[name];
    const done = spawnSync('/usr/bin/python3', [SCRIPT, OUT, flag], { encoding: 'utf8' });
    assert.equal(done.status, 0, done.stderr);
    writeFileSync(stamp, '');
  }
  return folder;
}

export const A = 'dog bites man';
export const B = 'man bites dog';

// The native CLI's JSON for `folder` (docs/cli.md), or its stderr line when it refuses.
export function cli(folder, ...args) {
  const done = spawnSync(path.join(ROOT, 'build', 'native', 'poslab'), ['--model', 'checkpoint', '--checkpoint', folder,
    '--a', A, '--b', B, '--json', ...args], { encoding: 'utf8' });
  if (done.status !== 0) return { error: done.stderr.trim() };
  return JSON.parse(done.stdout);
}

// A copy of `folder` in a temporary folder with `file` cut to `bytes`, or
// replaced by `text`.
export function damaged(folder, file, { bytes, text }) {
  const copy = mkdtempSync(path.join(os.tmpdir(), 'poslab-damaged-'));
  mkdirSync(copy, { recursive: true });
  for (const f of FILES) copyFileSync(path.join(folder, f), path.join(copy, f));
  if (text !== undefined) writeFileSync(path.join(copy, file), text);
  else truncateSync(path.join(copy, file), bytes);
  return copy;
}

// The CLI's line for a refused folder as the page says it: without
// "poslab: " and with each file named by its own name.
export function pageLine(cliError, folder) {
  return cliError.replace(/^poslab: /, '').split(`${folder}/`).join('');
}

export const fileSize = (folder) => FILES.reduce((sum, f) => sum + statSync(path.join(folder, f)).size, 0);
export const paths = (folder, files = FILES) => files.map((f) => path.join(folder, f));
export const readConfig = (folder) => JSON.parse(readFileSync(path.join(folder, 'config.json'), 'utf8'));

// A checkpoint with GPT-2 XL's shapes (C 1600, 48 blocks, 1.6 billion
// weights: 6.2 GB of float32) whose model.safetensors is a sparse file: its
// header is real and its data reads as zeros, so it takes no disk. A
// browser must refuse it before allocating anything.
export function tooLarge(from = checkpoint('gpt2-mini')) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'poslab-xl-'));
  const [C, L, H, P, V] = [1600, 48, 25, 1024, 50257];
  copyFileSync(path.join(from, 'vocab.json'), path.join(dir, 'vocab.json'));
  copyFileSync(path.join(from, 'merges.txt'), path.join(dir, 'merges.txt'));
  const config = { ...readConfig(from), n_embd: C, n_layer: L, n_head: H, n_positions: P, vocab_size: V };
  writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config));
  const shapes = { 'wte.weight': [V, C], 'wpe.weight': [P, C], 'ln_f.weight': [C], 'ln_f.bias': [C] };
  for (let i = 0; i < L; i++) {
    Object.assign(shapes, {
      [`h.${i}.ln_1.weight`]: [C], [`h.${i}.ln_1.bias`]: [C], [`h.${i}.ln_2.weight`]: [C], [`h.${i}.ln_2.bias`]: [C],
      [`h.${i}.attn.c_attn.weight`]: [C, 3 * C], [`h.${i}.attn.c_attn.bias`]: [3 * C],
      [`h.${i}.attn.c_proj.weight`]: [C, C], [`h.${i}.attn.c_proj.bias`]: [C],
      [`h.${i}.mlp.c_fc.weight`]: [C, 4 * C], [`h.${i}.mlp.c_fc.bias`]: [4 * C],
      [`h.${i}.mlp.c_proj.weight`]: [4 * C, C], [`h.${i}.mlp.c_proj.bias`]: [C],
    });
  }
  const header = {};
  let at = 0;
  for (const [name, shape] of Object.entries(shapes)) {
    const bytes = 4 * shape.reduce((a, b) => a * b, 1);
    header[name] = { dtype: 'F32', shape, data_offsets: [at, at + bytes] };
    at += bytes;
  }
  let text = JSON.stringify(header);
  text += ' '.repeat((8 - (text.length % 8)) % 8);
  const head = Buffer.alloc(8 + text.length);
  head.writeBigUInt64LE(BigInt(text.length));
  head.write(text, 8);
  const file = path.join(dir, 'model.safetensors');
  writeFileSync(file, head);
  truncateSync(file, head.length + at);
  return dir;
}

// Notes every change of the page's GPT-2 box (status line, progress bar) in
// window.__mf, with its time: how often the bar moved. `page`: a
// Playwright page, whichever browser.
export const recordProgress = (page) => page.evaluate(() => {
  window.__mf = [];
  const box = document.getElementById('model-files');
  new MutationObserver(() => {
    const bar = box.querySelector('.mf-progress');
    window.__mf.push({ t: performance.now(), status: box.querySelector('.mf-status').textContent,
      value: bar.hidden ? null : Number(bar.getAttribute('value')), max: Number(bar.getAttribute('max')) });
  }).observe(box, { subtree: true, attributes: true, characterData: true, childList: true });
});
