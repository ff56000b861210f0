// The npm package (make package): the tarball npm pack writes holds the
// wrapper, the glue, both modules and the TypeScript declarations; installed
// into an empty project it runs the module's figures through
// `import { createLab } from 'poslab'`, with either module. The
// declarations are checked against a lab and against docs/interfaces.md.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, VERSION, TARBALL, makePackage, installPackage } from '../package_install.mjs';
import { near } from '../near.mjs';

let consumer;
before(() => {
  makePackage();
  consumer = installPackage();
});
after(() => consumer?.remove());

test('the tarball holds the wrapper, the glue, the modules and the declarations, not the page', () => {
  const listed = execFileSync('tar', ['tzf', TARBALL], { encoding: 'utf8' }).trim().split('\n').sort();
  assert.deepEqual(listed, ['package/README.md', 'package/checkpoints.js', 'package/package.json', 'package/poslab-checkpoint.js',
    'package/poslab-checkpoint.wasm', 'package/poslab-core.js', 'package/poslab-nosimd.wasm', 'package/poslab.d.ts',
    'package/poslab.js', 'package/poslab.wasm']);
  const installed = path.join(consumer.dir, 'node_modules', 'poslab');
  const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8'));
  assert.equal(manifest.version, VERSION, 'the same version as the project');
  assert.equal(manifest.dependencies, undefined);
  for (const file of ['poslab.wasm', 'poslab-nosimd.wasm', 'poslab-checkpoint.wasm']) {
    assert.deepEqual(readFileSync(path.join(installed, file)), readFileSync(path.join(ROOT, 'build', 'site', file)), file);
  }
  assert.deepEqual(readdirSync(path.join(consumer.dir, 'node_modules')).filter((n) => !n.startsWith('.')), ['poslab']);
});

// What the consumer's own script prints: both modules' answers for "man".
const SCRIPT = `
import { createLab, simdSupported, CORE_FUNCTIONS } from 'poslab';
const out = { simdSupported: simdSupported(), functions: CORE_FUNCTIONS.length };
for (const simd of [true, false]) {
  const lab = await createLab({ simd });
  const r = lab.run({ sentence_a: 'dog bites man', sentence_b: 'man bites dog' });
  const sweep = lab.run({ scheme: 'rope', heads: 2, sweep: { lo: 1e-6, hi: 10, count: 8 }, full: true });
  out[simd ? 'simd' : 'nosimd'] = { simd: lab.simd, man: r.pairs[2], mean: r.mean, sweep: JSON.stringify(sweep),
    threshold: lab.threshold({ scheme: 'random' }, 2) };
  lab.dispose();
}
console.log(JSON.stringify(out));
`;

test('import { createLab } from \'poslab\' in a new project under Node: the module\'s figures, from either module', () => {
  writeFileSync(path.join(consumer.dir, 'check.mjs'), SCRIPT);
  const out = JSON.parse(execFileSync(process.execPath, ['check.mjs'], { cwd: consumer.dir, encoding: 'utf8' }));
  assert.equal(out.simdSupported, true);
  assert.equal(out.functions, JSON.parse(readFileSync(path.join(ROOT, 'src', 'exports.json'), 'utf8')).length);
  for (const name of ['simd', 'nosimd']) {
    const r = out[name];
    assert.equal(r.simd, name === 'simd');
    assert.deepEqual([r.man.word, r.man.index_b, r.man.allclose], ['man', 0, false], name);
    assert.ok(near(r.man.max_abs_diff, 12.536657700122994), `${name}: ${r.man.max_abs_diff}`);
    assert.ok(near(r.man.cosine_distance, 0.9415675654775886), `${name}: ${r.man.cosine_distance}`);
    assert.ok(near(r.mean.cosine_distance, 0.535138300649038), `${name}: ${r.mean.cosine_distance}`);
    assert.ok(near(r.threshold, 9.12441601539598e-8), `${name}: ${r.threshold}`);
  }
  assert.equal(out.nosimd.sweep, out.simd.sweep, 'the two modules agree bit for bit');
});

// The names a block of the declarations declares at its own depth (`name(`,
// `name:` or `name?:`, nested blocks left out), the block starting at `header`.
function declared(dts, header) {
  const start = dts.indexOf(header);
  assert.ok(start >= 0, `${header} is in poslab.d.ts`);
  const indent = header.match(/^ */)[0];
  const body = dts.slice(start, dts.indexOf(`\n${indent}}`, start));
  const member = new RegExp(`^${indent}  (?:readonly )?([a-zA-Z_]+)\\??[(:]`, 'gm');
  return [...body.matchAll(member)].map((m) => m[1]);
}

test('the declarations match the wrapper and docs/interfaces.md', async () => {
  const dts = readFileSync(path.join(consumer.dir, 'node_modules', 'poslab', 'poslab.d.ts'), 'utf8');
  const wrapper = await import(path.join(consumer.dir, 'node_modules', 'poslab', 'poslab.js'));
  // the module's exports, each declared
  const exported = Object.keys(wrapper).sort();
  assert.deepEqual(exported, ['CHECKPOINT_FUNCTIONS', 'CORE_FUNCTIONS', 'createLab', 'openCheckpoint', 'simdSupported']);
  for (const name of exported) assert.match(dts, new RegExp(`^export (?:function|const) ${name}\\b`, 'm'), name);
  // every member of Lab is on a lab, as a method where declared as one
  const lab = await wrapper.createLab();
  const members = declared(dts, 'export interface Lab {');
  assert.ok(members.length >= 9, members.join(', '));
  for (const name of members) {
    assert.ok(name in lab, `lab.${name}`);
    const isMethod = new RegExp(`^\\s+${name}\\(`, 'm').test(dts);
    assert.equal(typeof lab[name] === 'function', isMethod, `lab.${name} is ${isMethod ? 'a method' : 'a property'}`);
  }
  // every lab.x the docs describe is declared
  const docs = readFileSync(path.join(ROOT, 'docs', 'interfaces.md'), 'utf8');
  const documented = [...docs.matchAll(/^### lab\.([a-zA-Z]+)/gm)].map((m) => m[1]);
  assert.ok(documented.length >= 5, documented.join(', '));
  for (const name of [...documented, 'dispose', 'memoryBytes', 'simd']) assert.ok(members.includes(name), `${name} is declared`);
  // Config: the option table's keys (sweep among them), plus full and packed
  const config = declared(dts, 'export interface Config {');
  assert.deepEqual(config.sort(), [...lab.options.options.map((o) => o.json), 'full', 'packed'].sort());
  // Result: the fields a full transformer run with a sweep gives
  const result = declared(dts, 'export interface Result {');
  const full = lab.run({ model: 'transformer', sweep: { lo: 1, hi: 2, count: 2 }, full: true });
  assert.deepEqual([...result].sort(), Object.keys(full).sort());
  // its config: a transformer's keys and a checkpoint's (checkpoint, prefix_space; no dim, seed...)
  const ck = await lab.openCheckpoint({ url: pathToFileURL(path.join(ROOT, 'build', 'site', 'models', 'gpt') + path.sep) });
  const trained = Object.keys(ck.run({}).config);
  assert.deepEqual(declared(dts, '  config: {').sort(), [...new Set([...Object.keys(full.config), ...trained])].sort());
  assert.deepEqual(['dim', 'seed', 'heads', 'layers', 'weight_std'].filter((k) => trained.includes(k)), []);
  assert.deepEqual(declared(dts, 'export interface CreateLabOptions {').sort(), ['base', 'simd']);
  lab.dispose();
});

// The declarations through the TypeScript compiler (strict), as a
// consumer's code sees them: a script that uses every part of the API
// compiles, and one that misuses it is refused (so the check can fail).
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const USES = `
import { createLab, simdSupported, CORE_FUNCTIONS, type Config, type Result } from 'poslab';
const lab = await createLab({ simd: simdSupported() });
const config: Config = { sentence_a: ['dog', 'bites', 'man'], sentence_b: 'man bites dog', scheme: 'rope', heads: 2,
  dim: 8, sweep: { lo: 1e-3, hi: 1, count: 4 }, full: true };
const result: Result = lab.run(config);
const man: boolean | undefined = result.pairs[2].allclose; // no figures for a word without a partner
const steps = lab.runSteps({ ...config, model: 'transformer', layers: 2 });
let step = steps.next();
while (!step.done) step = steps.next();
const deep: Result = step.value;
const layers: number = deep.layers?.length ?? 0;
const where: number = lab.threshold({ scheme: 'random' }, 2, { hi: 10 });
const trained: Result = lab.run({ model: 'checkpoint', prefix_space: false, causal: 1 });
const seed: number | undefined = trained.config.seed; // (none in a checkpoint's run)
const table: number[][] = lab.sinusoidal(0, 3, 4);
const slope: number = lab.alibiSlope(0, 8);
const names: string[] = lab.options.options.map((o) => o.json);
console.log(man, layers, where, seed, table.length, slope, names.length, CORE_FUNCTIONS.length, lab.simd, lab.memoryBytes());
lab.dispose();
`;
const MISUSES = `
import { createLab } from 'poslab';
const lab = await createLab();
const cosine: string = lab.run({}).mean.cosine_distance;
const steps: number = lab.runSteps({}).next().value;
`;

test('the declarations compile in a strict TypeScript consumer, and misuse is refused', () => {
  const compile = (source) => {
    const file = path.join(consumer.dir, 'check.ts');
    writeFileSync(file, source);
    try {
      execFileSync(process.execPath, [TSC, '--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext',
        '--moduleResolution', 'nodenext', file], { cwd: consumer.dir, encoding: 'utf8' });
      return '';
    } catch (e) {
      return `${e.stdout}${e.stderr}` || 'tsc failed';
    }
  };
  assert.equal(compile(USES), '');
  const refused = compile(MISUSES);
  assert.match(refused, /check\.ts\(4,7\): error TS2322: Type 'number \| null' is not assignable to type 'string'/);
  assert.match(refused, /check\.ts\(5,7\): error TS2322: Type 'Result \| undefined' is not assignable to type 'number'/);
});
