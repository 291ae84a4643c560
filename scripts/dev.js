#!/usr/bin/env node
'use strict';
// `npm run dev`: compiles src/ (`nest build --watch`, which applies the swagger plugin) and migrations/
// (`tsc --watch`) into dist/, and runs the API from dist/main.js, restarted after every compile that ends
// without errors. A restart is a graceful stop (SIGTERM: requests and jobs finish, the embedded PostgreSQL
// is stopped last) and a new start. The API runs in a process group of its own, so that Ctrl-C reaches it
// once, through this script, and it stops as cleanly as under `npm start`.
const { spawn } = require('node:child_process');
const { join } = require('node:path');
const { createInterface } = require('node:readline');

const ROOT = join(__dirname, '..');
const BIN = join(ROOT, 'node_modules', '.bin');
/** What tsc's watch mode prints after each compile, whether or not it found errors. */
const COMPILED = /Found (\d+) errors?\. Watching for file changes/;

const say = (line) => process.stderr.write(`[dev] ${line}\n`);

let api; // the running API's child process
let apiExited; // resolves when it has exited
let stopping = false;
let restarting = false;
let restartAgain = false;
const errors = new Map(); // watcher name -> errors of its last compile
const watchers = [];

function startApi() {
  const child = spawn(process.execPath, ['--enable-source-maps', 'dist/main.js'], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
    detached: true,
  });
  api = child;
  apiExited = new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      if (api === child) api = undefined;
      if (!stopping && !restarting) say(`the API exited (${signal ?? code}); it starts again after the next change`);
      resolve();
    }),
  );
}

async function stopApi(signal = 'SIGTERM') {
  if (!api) return;
  api.kill(signal);
  await apiExited;
}

/** Restarts the API once both compilers have reported and neither found errors; a change meanwhile restarts it again. */
async function restart() {
  if (stopping || errors.size < 2) return;
  const failed = [...errors].filter(([, count]) => count > 0);
  if (failed.length) {
    say(`not restarting: ${failed.map(([name, count]) => `${name} has ${count} error(s)`).join(', ')}`);
    return;
  }
  if (restarting) {
    restartAgain = true;
    return;
  }
  restarting = true;
  try {
    do {
      restartAgain = false;
      if (api) say('compiled: restarting the API');
      await stopApi();
      if (!stopping) startApi();
    } while (restartAgain && !stopping);
  } finally {
    restarting = false;
  }
}

/** Runs a compiler in watch mode, echoing its output; `onFirst` runs after its first compile. */
function watch(name, command, args, onFirst) {
  const child = spawn(join(BIN, command), args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  watchers.push(child);
  let first = true;
  createInterface({ input: child.stdout }).on('line', (line) => {
    process.stdout.write(`${line}\n`);
    const compiled = COMPILED.exec(line);
    if (!compiled) return;
    errors.set(name, Number(compiled[1]));
    if (first) {
      first = false;
      onFirst?.();
    }
    void restart();
  });
  child.once('exit', (code, signal) => {
    // A signal: Ctrl-C reached it beside this script.
    if (!stopping && !signal) say(`${name} exited (${code})`);
    void stop(signal ? 0 : 1);
  });
}

async function stop(exitCode, signal = 'SIGTERM') {
  if (stopping) return;
  stopping = true;
  for (const child of watchers) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  await stopApi(signal);
  process.exit(exitCode);
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    // A second signal while the API closes: it exits at once, as it does under npm start.
    if (stopping) api?.kill(signal);
    else void stop(0);
  });
}

// nest empties dist/ before its first compile (nest-cli.json's deleteOutDir): the migrations follow it.
watch('nest build', 'nest', ['build', '--watch', '--preserveWatchOutput'], () =>
  watch('tsc (migrations)', 'tsc', ['-p', 'tsconfig.migrations.json', '--watch', '--preserveWatchOutput']),
);
