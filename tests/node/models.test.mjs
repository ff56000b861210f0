// The page's table of models (web/app/models.js) against the core's and the
// wrapper's names, and the layers of web/: each folder imports only from the
// ones below it, nothing imports in a circle, and no module outside the
// table compares a model's name. Run `make native site`.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WEB = path.join(ROOT, 'web');
const CLI = `${ROOT}build/native/poslab`;
const { MODELS, CORE_MODELS, TRAINED_MODELS, FILES_MODEL, modelOf } = await import(`${ROOT}web/app/models.js`);
const lib = await import(`${ROOT}web/lib/trained_models.js`);
const { createLab } = await import(`${ROOT}build/site/poslab.js`);
const lab = await createLab();
after(() => lab.dispose());

test("every model runs as one of the core's models, and the core's are the table's", () => {
  // the CLI's --model values (the page's module leaves the checkpoint out of its table: lab.options)
  const help = spawnSync(CLI, ['--help'], { encoding: 'utf8' }).stdout;
  const cli = help.match(/--model ([a-z|]+)/)[1].split('|');
  assert.deepEqual(Object.keys(CORE_MODELS).sort(), [...cli].sort());
  const core = lab.options.options.find((o) => o.name === 'model');
  for (const value of core.values) assert.ok(cli.includes(value), value);
  for (const m of MODELS) assert.ok(cli.includes(m.core), `${m.name}: core ${m.core}`);
  // each row names every field, with a value the page knows
  for (const m of MODELS) {
    assert.ok(['page', 'run-worker', 'slices'].includes(m.runs), `${m.name}: runs ${m.runs}`);
    assert.ok(['sweep-workers', 'run-worker', 'slices'].includes(m.chart), `${m.name}: chart ${m.chart}`);
    assert.ok([null, 'site', 'yours'].includes(m.files), `${m.name}: files ${m.files}`);
    assert.ok([null, 'switches', 'tour-step'].includes(m.lesson), `${m.name}: lesson ${m.lesson}`);
    assert.equal(CORE_MODELS[m.core].drawn, m.files === null, `${m.name}: drawn weights or files`);
    assert.equal(m.defaults !== null, !CORE_MODELS[m.core].drawn, `${m.name}: a checkpoint opens as trained`);
    assert.equal(modelOf(m.name), m);
  }
  assert.equal(new Set(MODELS.map((m) => m.name)).size, MODELS.length);
});

test("the models trained here are the wrapper's, the CLI's and the folders make site ships", () => {
  assert.deepEqual(TRAINED_MODELS, lib.TRAINED_MODELS);
  assert.equal(FILES_MODEL, lib.FILES_MODEL);
  const folders = readdirSync(path.join(ROOT, 'models')).filter((d) => existsSync(path.join(ROOT, 'models', d, 'config.json')));
  assert.deepEqual([...TRAINED_MODELS].sort(), folders.sort());
  for (const name of TRAINED_MODELS) assert.ok(existsSync(`${ROOT}build/site/models/${name}/config.json`), name);
  // the wrapper says what such a name is, as the CLI does
  for (const name of [...TRAINED_MODELS, FILES_MODEL]) {
    assert.throws(() => lab.run({ model: name }), /is a checkpoint/, name);
    const cli = spawnSync(CLI, ['--model', name], { encoding: 'utf8' });
    assert.notEqual(cli.status, 0, name);
    assert.match(cli.stderr, TRAINED_MODELS.includes(name) ? /is a checkpoint trained here/ : /is a checkpoint/, name);
  }
});

// web/'s folders, lowest first: a module imports only from its own folder
// or a lower one. The entry modules (main.js, page.js, the workers, the
// Why panel) sit above them all.
const RANK = { lib: 0, app: 1, teach: 2, browser: 3, views: 4, '.': 5 };
const moduleFiles = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
  const full = path.join(dir, e.name);
  if (e.isDirectory()) return ['dist', 'vendor'].includes(e.name) ? [] : moduleFiles(full);
  return e.name.endsWith('.js') ? [full] : [];
});
const importsOf = (file) => [...readFileSync(file, 'utf8').matchAll(/(?:^import[^'"]*|\bimport\(\s*)'(\.\.?\/[^']+)'/gm)]
  .map((m) => path.resolve(path.dirname(file), m[1]))
  .filter((f) => !f.endsWith('chart.min.js') && !f.endsWith('poslab-core.js'));
const folderOf = (file) => path.relative(WEB, path.dirname(file)) || '.';

test('web/ is in layers: no module imports from a higher folder, nor in a circle', () => {
  const files = moduleFiles(WEB);
  const graph = new Map(files.map((f) => [f, importsOf(f)]));
  for (const [file, imports] of graph) {
    for (const target of imports) {
      assert.ok(graph.has(target), `${path.relative(WEB, file)} imports ${path.relative(WEB, target)}, which is not there`);
      assert.ok(RANK[folderOf(target)] <= RANK[folderOf(file)],
        `${path.relative(WEB, file)} (${folderOf(file)}/) imports ${path.relative(WEB, target)} from a higher folder`);
    }
  }
  const done = new Set();
  const visit = (file, trail) => {
    if (trail.includes(file)) assert.fail(`imports in a circle: ${[...trail.slice(trail.indexOf(file)), file].map((f) => path.relative(WEB, f)).join(' -> ')}`);
    if (done.has(file)) return;
    for (const target of graph.get(file)) visit(target, [...trail, file]);
    done.add(file);
  };
  for (const file of files) visit(file, []);
});

test("outside the models' table, no page module compares a model's name", () => {
  const names = [...MODELS.map((m) => m.name), ...Object.keys(CORE_MODELS)].join('|');
  const compared = new RegExp(`[=!]==\\s*'(${names})'|'(${names})'\\s*[=!]==`);
  // (the wrapper, lib/, compares the core's own values: its API is the core's)
  const page = moduleFiles(WEB).filter((f) => folderOf(f) !== 'lib' && !f.endsWith(path.join('app', 'models.js')));
  for (const file of page) {
    readFileSync(file, 'utf8').split('\n').forEach((line, k) => {
      assert.doesNotMatch(line, compared, `${path.relative(WEB, file)}:${k + 1}`);
    });
  }
});
