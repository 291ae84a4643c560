#!/usr/bin/env node
'use strict';
// Plain CommonJS: it runs before anything is compiled (`npm start`, `npm run dev`), and the test set-up
// (test/helpers/global-setup.ts) requires it, so that both decide "dist/ is stale" the same way.
const { execFileSync } = require('node:child_process');
const { existsSync, readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');

/** What a build writes; each must exist. */
const BUILT = ['dist/main.js', 'dist/worker.js', 'dist/cli.js', 'dist/healthcheck.js', 'dist/migrations'];
/** What a build reads; dist/ is stale once any of them is newer than it. */
const SOURCES = ['src', 'migrations', 'package.json', 'nest-cli.json', 'tsconfig.json', 'tsconfig.build.json', 'tsconfig.migrations.json'];

/** The newest modification time under `path` (a file or a directory), in ms. */
function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

/**
 * Why `root`'s dist/ needs a build ("dist/cli.js is missing", "src is newer than dist/"), or null when it is
 * up to date. A build replaces the whole of dist/ (nest-cli.json's deleteOutDir) and writes dist/main.js
 * before dist/migrations, so dist/main.js dates it.
 */
function staleReason(root) {
  const missing = BUILT.find((path) => !existsSync(join(root, path)));
  if (missing) return `${missing} is missing`;
  const built = statSync(join(root, 'dist/main.js')).mtimeMs;
  const newer = SOURCES.find((path) => existsSync(join(root, path)) && newest(join(root, path)) > built);
  return newer ? `${newer} is newer than dist/` : null;
}

/** Runs `npm run build` in `root` when dist/ is stale; answers whether it built. */
function buildIfStale(root, log) {
  const reason = staleReason(root);
  if (!reason) return false;
  log(`${reason}: building (npm run build)`);
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  return true;
}

module.exports = { staleReason, buildIfStale };

if (require.main === module) {
  buildIfStale(join(__dirname, '..'), (line) => process.stderr.write(`${line}\n`));
}
