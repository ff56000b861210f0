// The teaching table (web/teach/schemes.js) against the core's scheme table
// (lab.options.schemes): a scheme the core has and the table lacks would be
// a radio button with no words, a NumPy script without its lines, a label
// "undefined" in the verdicts' story. Adding a scheme to the core without its
// teaching entry fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const { createLab } = await import(`${root}build/site/poslab.js`);
const { SCHEMES, appliesTo, choosable, SCHEME_LABELS } = await import(`${root}web/teach/schemes.js`);
const { numpyScript } = await import(`${root}web/teach/numpy_script.js`);
const { SCHEME_NUMPY } = await import(`${root}web/teach/scheme_numpy.js`);
const lab = await createLab();
const core = lab.options.schemes.map((s) => s.name);
const models = lab.options.options.find((o) => o.name === 'model').values;

// A teaching entry as the page reads it, with its NumPy lines; throws on the first gap.
function checkEntry(name, e, numpy = SCHEME_NUMPY[name]) {
  assert.ok(typeof e.label === 'string' && e.label.length > 0, `${name}: a label`);
  if (name !== 'none') assert.ok(typeof e.hint === 'string' && e.hint.length > 10 && !e.hint.includes('\n'), `${name}: a one-line description`);
  assert.ok(numpy, `${name}: NumPy lines in web/teach/scheme_numpy.js`);
  if (name !== 'none') assert.ok(['absolute', 'relative'].includes(e.kind), `${name}: kind absolute or relative`);
  if (e.kind === 'absolute') {
    assert.ok(numpy.input?.some((l) => /^X1 = /.test(l)) && numpy.input.some((l) => /^X2 = /.test(l)),
      `${name}: an absolute scheme's NumPy lines add its signal to X1 and X2`);
  }
  if (e.kind === 'relative') {
    assert.equal(typeof numpy.head, 'function', `${name}: a relative scheme's lines inside attention`);
    assert.ok(numpy.inside && e.sees, `${name}: what it does inside attention, and what it sees`);
  }
  for (const model of e.models ?? []) assert.ok(models.includes(model), `${name}: "${model}" is not a core model`);
}

test('every scheme of the core has one teaching entry, and every entry is a core scheme', () => {
  for (const name of core) {
    assert.ok(Object.hasOwn(SCHEMES, name), `the core's scheme "${name}" has no entry in web/teach/schemes.js`);
    checkEntry(name, SCHEMES[name]);
  }
  assert.deepEqual(Object.keys(SCHEMES).filter((name) => !core.includes(name)), [], 'entries for schemes the core lacks');
  assert.deepEqual(Object.keys(SCHEME_NUMPY).sort(), [...core].sort(), 'NumPy lines for the core\'s schemes, and only those');
  assert.deepEqual(Object.keys(SCHEME_LABELS), core.filter((name) => name !== 'none'));
  assert.throws(() => numpyScript({ ...lab.run({}).config, scheme: 'nope' }), /no (teaching entry|NumPy lines) for the scheme "nope"/);
});

test('an entry without its words or lines fails the check', () => {
  assert.throws(() => checkEntry('x', { ...SCHEMES.sinusoidal, hint: '' }, SCHEME_NUMPY.sinusoidal), /one-line description/);
  assert.throws(() => checkEntry('x', SCHEMES.rope, { ...SCHEME_NUMPY.rope, head: undefined }), /inside attention/);
  assert.throws(() => checkEntry('x', SCHEMES.random, { input: [] }), /add its signal/);
  assert.throws(() => checkEntry('x', { ...SCHEMES.random, models: ['checkpoint-typo'] }, SCHEME_NUMPY.random), /not a core model/);
});

test('a scheme can be limited to some models: the page offers it only there', () => {
  const saved = SCHEMES.rope.models;
  try {
    SCHEMES.rope.models = ['transformer'];
    assert.equal(appliesTo('rope', 'head'), false);
    assert.deepEqual(choosable(lab.options.schemes, 'head'), ['random', 'sinusoidal', 'alibi']);
    assert.deepEqual(choosable(lab.options.schemes, 'transformer'), ['random', 'sinusoidal', 'rope', 'alibi']);
  } finally {
    SCHEMES.rope.models = saved;
  }
  for (const model of models) {
    assert.deepEqual(choosable(lab.options.schemes, model), core.filter((n) => n !== 'none' && appliesTo(n, model)));
  }
});

test('each scheme\'s NumPy lines are the ones Copy as NumPy writes, for every model it applies to', () => {
  for (const name of core) {
    for (const model of models.filter((m) => appliesTo(name, m))) {
      const config = lab.run({ scheme: name, model, heads: 2, dim: 4, layers: 1 }).config;
      const script = numpyScript(config);
      const e = SCHEMES[name], numpy = SCHEME_NUMPY[name];
      const own = [...(numpy.imports ?? []), ...(numpy.define ?? []).filter(Boolean), ...(numpy.settings ?? []),
        ...(e.kind === 'relative' ? [...numpy.head({ q: 'q', k: 'k', h: 'h' }).before, ...numpy.head({ q: 'q', k: 'k', h: 'h' }).after]
          : numpy.input)];
      for (const line of own) assert.ok(script.includes(line), `${name}, ${model}: the script lacks ${JSON.stringify(line)}`);
    }
  }
});
