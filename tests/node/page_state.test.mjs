// The page's DOM-free modules under Node, from web/: the state table
// and its hash format, the number format, and the model's caching, checked
// against the real WebAssembly lab. Faster and more thorough than driving
// the browser for the same things.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';

// The page's DOM-free modules from their sources; the wrapper as built.
const SITE = fileURLToPath(new URL('../../build/site/', import.meta.url));
const WEB = fileURLToPath(new URL('../../web/', import.meta.url));
const { wordsOf } = await import(`${WEB}app/state.js`);
const { stateForm } = await import('../state_form.mjs');
// The page's form, made from the core's option table as the page makes it.
const { form } = await stateForm();
const { defaultState, parseHash, toHash, sentenceProblem, properties: PROPERTIES } = form;
const { sig } = await import(`${WEB}app/format.js`);
const { Model, SWEEP, wordPattern } = await import(`${WEB}app/model.js`);
const { createLab } = await import(`${SITE}poslab.js`);
const { readView, viewUrl } = await import(`${WEB}views/embed.js`);
const { iframeSnippet } = await import(`${WEB}views/embed_dialog.js`);

test('defaults are the course module\'s first experiment, positions off', () => {
  assert.deepEqual(defaultState(), {
    a: 'dog bites man', b: 'man bites dog', offsetA: 0, offsetB: 0, positions: false, scheme: 'random', scale: 0.5,
    causal: false, word: 2, dim: 6, heads: 1, seed: 2, rtol: 1e-5, atol: 1e-8, model: 'head', layers: 2, weightStd: 0.02,
    checkpoint: '', space: true,
  });
  assert.deepEqual(parseHash(''), { state: defaultState(), ignored: [] });
});

test('every state survives the hash exactly', () => {
  const states = [
    defaultState(),
    {
      a: 'a&b=c #d +e %20 “quoted” 🐶\tx', b: 'x 🐶 %20 +e #d a&b=c “quoted”', offsetA: 1024, offsetB: 7, positions: true,
      scheme: 'rope', scale: 1.2345678901234567e-7, causal: true, word: 5, dim: 512, heads: 8, seed: 4294967295, rtol: 0, atol: 123.5,
      model: 'transformer', layers: 12, weightStd: 1.5e-300, checkpoint: '', space: true,
    },
    { ...defaultState(), scheme: 'sinusoidal', scale: 0, positions: true, word: 0 },
    { ...defaultState(), scheme: 'alibi', scale: 1, positions: true, offsetB: 5, dim: 15, heads: 5 },
  ];
  for (const state of states) {
    const { state: back, ignored } = parseHash(`#${toHash(state)}`);
    assert.deepEqual(ignored, []);
    assert.deepEqual(back, state);
  }
  // Every property of the table has a hash key, and they are distinct.
  assert.equal(new Set(PROPERTIES.map((p) => p.key)).size, PROPERTIES.length);
});

test('garbage in the hash: bad fields fall back to defaults and are listed', () => {
  const { state, ignored } = parseHash('#scale=NaN&dim=513&seed=-1&rtol=inf&atol=1e999&scheme=none&pos=2' +
    '&causal=&word=1.5&b=&a=%20%20&extra=1&extra=2');
  assert.deepEqual(state, defaultState());
  assert.deepEqual(ignored.map((i) => i.label), ['sentence A', 'sentence B', 'positional information', 'scheme',
    'magnitude', 'causal mask', 'plotted word', 'dim', 'seed', 'rtol', 'atol', 'unknown setting "extra"']);
  // `scheme=none` is the positions switch's job, not a scheme to pick; alibi is one.
  assert.equal(parseHash('#scheme=alibi').state.scheme, 'alibi');
  // A word index must exist in sentence A (here: the link's own sentence A).
  assert.equal(parseHash('#a=one+two&word=1').state.word, 1);
  assert.equal(parseHash('#a=one+two&word=2').ignored[0].reason, 'sentence A has no word number 2');
  // The default magnitude follows the link's scheme.
  assert.equal(parseHash('#scheme=rope').state.scale, 1);
  assert.equal(parseHash('#scheme=rope&scale=abc').state.scale, 1);
});

test('where the sentences start and the heads: read from the hash within the core\'s limits, in its words', async () => {
  const lab = await createLab();
  // the core's message for a value, without the field name the notice puts before it
  const coreSays = (config) => {
    try {
      lab.run(config);
      return null;
    } catch (e) {
      return e.message;
    }
  };
  const good = parseHash('#oa=3&ob=1024&dim=16&heads=8');
  assert.deepEqual(good.ignored, []);
  assert.deepEqual([good.state.offsetA, good.state.offsetB, good.state.heads], [3, 1024, 8]);
  const config = form.configOf(good.state);
  assert.deepEqual([config.offset_a, config.offset_b, config.heads], [3, 1024, 8]);
  assert.equal(coreSays(config), null);
  for (const [key, json, label] of [['oa', 'offset_a', 'where sentence A starts'], ['ob', 'offset_b', 'where sentence B starts']]) {
    for (const raw of ['-1', '1025', '1.5', 'abc']) {
      const { state, ignored } = parseHash(`#${key}=${raw}`);
      assert.deepEqual(state, defaultState(), `${key}=${raw}`);
      assert.equal(ignored.length, 1);
      assert.deepEqual([ignored[0].label, ignored[0].value], [label, raw]);
      // the notice's reason is the end of the core's own line for the value
      const core = coreSays({ [json]: raw });
      assert.ok(core.endsWith(ignored[0].reason), `${core} / ${ignored[0].reason}`);
    }
  }
  for (const [hash, raw] of [['#heads=0', '0'], ['#heads=9', '9'], ['#heads=4', '4'], ['#dim=5&heads=2', '2']]) {
    const { state, ignored } = parseHash(hash);
    assert.equal(state.heads, 1, hash);
    assert.deepEqual(ignored.map((i) => [i.label, i.value]), [['heads', raw]]);
    const core = coreSays({ dim: state.dim, heads: raw });
    assert.ok(core.endsWith(ignored[0].reason), `${core} / ${ignored[0].reason}`);
  }
  // not dividing d: the core's whole line after the field name
  assert.equal(`heads: ${parseHash('#heads=4').ignored[0].reason}`, coreSays({ heads: 4 }));
  lab.dispose();
});

test('a 1 MB hash is read quickly and quoted briefly', () => {
  const start = performance.now();
  const { state, ignored } = parseHash(`#a=${'x'.repeat(1 << 20)}&b=${'y '.repeat(1 << 19)}&pos=1`);
  assert.ok(performance.now() - start < 1000);
  assert.equal(state.a, 'dog bites man');
  assert.equal(state.b, 'man bites dog');
  assert.equal(state.positions, true);
  assert.equal(ignored[0].value, `${'x'.repeat(32)}… (1048576 characters)`);
  assert.ok(ignored.every((i) => i.value.length < 64 && i.reason.length < 80));
});

test('the page checks sentences exactly as the core does', async () => {
  const lab = await createLab();
  const words = (n, w = 'w') => Array.from({ length: n }, (_, k) => `${w}${k}`).join(' ');
  const cases = ['', ' ', '\t\n', 'a', ' a  b ', words(64), words(65), 'x'.repeat(64), 'x'.repeat(65),
    'é'.repeat(32), 'é'.repeat(33), '🐶'.repeat(16), '🐶'.repeat(17), 'a\u00a0b', 'a\u3000b', 'a\vb\fc\rd',
    '<img src=x onerror=alert(1)>'];
  for (const text of cases) {
    let core = null;
    try {
      lab.run({ sentence_a: text, scheme: 'none' });
    } catch (e) {
      core = e.message;
    }
    assert.equal(sentenceProblem(text) === null, core === null, `${JSON.stringify(text).slice(0, 40)}: page ${sentenceProblem(text)}, core ${core}`);
    if (core === null) {
      assert.deepEqual(lab.run({ sentence_a: text, scheme: 'none' }).config.sentence_a, wordsOf(text));
    }
  }
  lab.dispose();
});

test('numbers are written like the CLI\'s %.4g', () => {
  const cases = [[12.536657700122994, '12.54'], [0.9415675654775886, '0.9416'], [3.2350096464073275e-05, '3.235e-05'],
    [1.1102230246251565e-16, '1.11e-16'], [0, '0'], [-2.220446049250313e-16, '-2.22e-16'], [0.535138300649038, '0.5351'],
    [1e-9, '1e-09'], [1000, '1000'], [123456, '1.235e+05'], [99999.5, '1e+05'], [0.0001, '0.0001'],
    [9.999e-05, '9.999e-05'], [1, '1'], [0.5, '0.5'], [9.99995, '10'], [-12.5, '-12.5'], [1e6, '1e+06'],
    [null, 'nan'], [Infinity, 'inf']];
  for (const [x, want] of cases) assert.equal(sig(x), want, String(x));
});

test('the model runs the sweep once per setting other than the magnitude', async () => {
  const lab = await createLab();
  const sweeps = [];
  const counting = {
    run: (config) => {
      if (config.sweep) sweeps.push(config.scheme);
      return lab.run(config);
    },
    threshold: (...args) => lab.threshold(...args),
    options: lab.options,
  };
  const model = new Model(counting, form);
  const state = { ...defaultState(), positions: true };
  const verdict = model.verdict(state);
  assert.deepEqual([verdict.pairs[2].word, verdict.pairs[2].allclose], ['man', false]);
  assert.equal(model.cachedSweep(state), undefined);
  const sweep = model.sweep(state);
  assert.equal(sweep.scales.length, SWEEP.count);
  for (const scale of [0.001, 1e-9, 3, 0]) {
    model.verdict({ ...state, scale });
    assert.equal(model.sweep({ ...state, scale }), sweep);
  }
  assert.deepEqual(sweeps, ['random']);
  model.sweep({ ...state, positions: false });
  model.sweep({ ...state, scheme: 'rope' });
  model.sweep(state); // still cached: switching back and forth is free
  assert.deepEqual(sweeps, ['random', 'none', 'rope']);
  // The threshold: allclose holds for "man" only at tiny magnitudes.
  const threshold = model.threshold(state, 2);
  assert.ok(threshold > 1e-9 && threshold < 1e-6, String(threshold));
  assert.equal(model.cachedThreshold(state, 2), threshold);
  assert.equal(model.threshold({ ...state, positions: false }, 2), null);
  lab.dispose();
});

test('sentences whose words are the same in the same places share a sweep, and the core agrees', async () => {
  const lab = await createLab();
  let sweeps = 0;
  const counting = { run: (config) => { if (config.sweep) sweeps += 1; return lab.run(config); },
    threshold: (...args) => lab.threshold(...args), options: lab.options };
  const model = new Model(counting, form);
  assert.deepEqual(wordPattern('dog bites  man', 'man\tbites dog'), { sentence_a: '0 1 2', sentence_b: '2 1 0' });
  assert.deepEqual(wordPattern('a b a', 'c b'), { sentence_a: '0 1 0', sentence_b: '2 1' });
  // case and punctuation make other words, as in the core
  assert.deepEqual(wordPattern('Dog dog dog,', 'dog'), { sentence_a: '0 1 2', sentence_b: '1' });
  // a word that may be over the core's 64 bytes keeps its letters
  const long = 'é'.repeat(40);
  assert.equal(wordPattern(`${long} x`, 'x').sentence_a, `0:${long} 1`);
  const same = [
    ['dog bites man', 'man bites dog'], ['cat eats fish', 'fish eats cat'], ['d bites man', 'man bites d'],
  ];
  const other = [
    ['dog bites dog', 'man bites dog'], ['dog bites man', 'man bites dog dog'], ['dog bites man', 'man bites cat'],
  ];
  for (const model_ of ['head', 'transformer']) {
    for (const scheme of ['random', 'rope', 'alibi']) {
      const base = { ...defaultState(), positions: true, scheme, model: model_, heads: 2, causal: scheme === 'alibi' };
      sweeps = 0;
      const [first, ...rest] = same.map(([a, b]) => ({ ...base, a, b }));
      const sweep = model.sweep(first);
      for (const state of rest) {
        assert.equal(model.sweepKey(state), model.sweepKey(first));
        assert.equal(model.sweep(state), sweep);
        // the core computes the very same curves for these words
        assert.deepEqual(lab.run({ ...model.configOf(state), sweep: SWEEP, packed: true }).sweep, sweep, `${model_} ${scheme} ${state.a}`);
        // while the verdicts, which name the words, are run for each
        assert.deepEqual(model.verdict(state).pairs.map((p) => p.word), state.a.split(' '));
      }
      assert.equal(sweeps, 1);
      for (const [a, b] of other) {
        const state = { ...base, a, b };
        assert.notEqual(model.sweepKey(state), model.sweepKey(first));
        assert.notDeepEqual(model.sweep(state).cosine.subarray(0, SWEEP.count), sweep.cosine.subarray(0, SWEEP.count),
          `${model_} ${scheme} ${a} / ${b}: the mean's curve`);
      }
    }
  }
  lab.dispose();
});

test('typed text is checked by the core, in its words', async () => {
  const lab = await createLab();
  const model = new Model(lab, form);
  const state = defaultState();
  assert.deepEqual(model.tryField(state, 'scale', ' 1e-3 '), { value: 0.001 });
  assert.deepEqual(model.tryField(state, 'scale', 'abc'), { message: '"abc" is not a number; allowed: a finite number from 0 to 1e6' });
  assert.deepEqual(model.tryField(state, 'dim', '0'), { message: '"0" is out of range; allowed: an integer from 1 to 512' });
  assert.deepEqual(model.tryField(state, 'a', 'alice paid bob'), { value: 'alice paid bob' });
  assert.match(model.tryField(state, 'b', '').message, /has no words/);
  // A lone surrogate (pasted text) reaches the core as U+FFFD, not as a broken byte sequence.
  const lone = model.verdict({ ...state, a: 'a\uD800 b', b: 'b a\uD800' });
  assert.deepEqual(lone.config.sentence_a, ['a\uFFFD', 'b']);
  lab.dispose();
});

test('embed options: ?embed=1&hide=... and a safe snippet', () => {
  assert.deepEqual(readView('?embed=1&hide=words,plot, intro,bogus'), {
    embed: true,
    hide: new Set(['words', 'plot', 'intro']),
    site: null,
    ignored: [{ label: 'hide', value: 'bogus', reason: 'allowed: intro, words, positions, scheme, magnitude, causal, model, advanced, blocks, plot, tour, export, heatmap, permutation, baseline, why' }],
  });
  assert.equal(readView('').embed, false);
  // a bare ?embed, as teaching.md writes it in prose; a no; a value that is neither, said
  assert.deepEqual([readView('?embed').embed, readView('?embed&hide=intro').embed, readView('?embed=yes').embed], [true, true, true]);
  assert.deepEqual(readView('?embed=0'), { embed: false, hide: new Set(), site: null, ignored: [] });
  assert.deepEqual(readView('?embed=please').ignored, [{ label: 'embed', value: 'please', reason: 'allowed: 1 or 0' }]);
  assert.equal(readView('?embed=please').embed, false);
  // where a copy on disk is published: an http(s) address, else said and ignored
  assert.equal(readView('?site=https%3A%2F%2Fcourse.example%2Fposlab%2F').site, 'https://course.example/poslab/');
  assert.deepEqual(readView('?site=javascript:alert(1)'), { embed: false, hide: new Set(), site: null,
    ignored: [{ label: 'site', value: 'javascript:alert(1)', reason: 'allowed: an http or https address' }] });
  assert.equal(viewUrl('a=x', { base: 'file:///lab/index.html', hide: ['intro'], site: 'https://c.example/p/' }),
    'file:///lab/index.html?hide=intro&site=https%3A%2F%2Fc.example%2Fp%2F#a=x');
  const [frame, fit] = iframeSnippet('https://x/?embed=1#a=1&b="<', '100%', '700').split('\n');
  assert.equal(frame,
    '<iframe src="https://x/?embed=1#a=1&amp;b=&quot;&lt;" width="100%" height="700" title="poslab" loading="lazy" style="border:0" allow="clipboard-write" data-poslab></iframe>');
  // the lines that size the frame and tell it what is in sight: fixed
  // text, nothing from the view in them
  assert.match(fit, /^<script>\(function\(\)\{.*addEventListener\("message",.*f\.style\.height=d\.height\+"px".*<\/script>$/);
  assert.match(fit, /postMessage\(\{poslab:"view",top:-r\.top,bottom:innerHeight-r\.top\},"\*"\)/);
  assert.equal(iframeSnippet('https://y/', '1', '2').split('\n')[1], fit);
});
