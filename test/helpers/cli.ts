import { execFile } from 'node:child_process';
import { join } from 'node:path';
import type { ChildEnv } from './processes';

const ROOT = join(__dirname, '..', '..');
export const CLI = join(ROOT, 'dist', 'cli.js');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node dist/cli.js …` (the test run's set-up has built it) with the test run's environment (its database
 * and Redis) plus `env` (`undefined` leaves a variable out), in `options.cwd` (the checkout by default).
 */
export function runCli(args: string[], env: ChildEnv = {}, options: { cwd?: string } = {}): Promise<CliRun> {
  const cwd = options.cwd ?? ROOT;
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}
