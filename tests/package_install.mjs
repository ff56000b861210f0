// The wrapper as a stranger's project gets it: `make package` packs it with
// npm pack, and installPackage() installs that tarball into an empty temporary
// project with npm (offline: the package has no dependencies), as
// tests/node/package.test.mjs and tests/browser/package.test.mjs need.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const VERSION = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
export const TARBALL = path.join(ROOT, 'build', `poslab-${VERSION}.tgz`);

const run = (command, args, cwd) => {
  const done = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 600000 });
  assert.equal(done.status, 0, `${command} ${args.join(' ')} failed:\n${done.stdout}\n${done.stderr}`);
  return done.stdout;
};

// Packs build/poslab-<version>.tgz (after `make site`, only that step runs).
export function makePackage() {
  const args = existsSync(path.join(ROOT, 'build', 'site', 'poslab.js')) ? ['-o', 'site', 'package'] : ['package'];
  run('make', ['--no-print-directory', ...args], ROOT);
  assert.ok(existsSync(TARBALL), `${TARBALL} was not written`);
}

// A new project with the tarball installed: { dir, remove() }.
export function installPackage() {
  const dir = mkdtempSync(path.join(tmpdir(), 'poslab-consumer-'));
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  run('npm', ['install', TARBALL, '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], dir);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
