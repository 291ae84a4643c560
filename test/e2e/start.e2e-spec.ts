import { mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { staleReason } from '../../scripts/build-if-stale';
import { BuiltProcess } from '../helpers/processes';
import { freePort } from '../helpers/ports';

const ROOT = join(__dirname, '..', '..');

describe('dist/ freshness (scripts/build-if-stale.js, shared by npm start, npm run dev and the test set-up)', () => {
  let root: string;
  const write = (path: string, at: number): void => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), '');
    utimesSync(join(root, path), at, at);
  };
  const touch = (path: string, at: number): void => utimesSync(join(root, path), at, at);

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'pm-dist-'));
    const sources = 1_700_000_000; // seconds: every source older than the build
    for (const path of ['src/main.ts', 'src/common/deep/file.ts', 'migrations/1-First.ts', 'package.json', 'tsconfig.json']) {
      write(path, sources);
    }
    for (const path of ['src', 'src/common', 'src/common/deep', 'migrations']) touch(path, sources);
    for (const path of ['dist/main.js', 'dist/worker.js', 'dist/cli.js', 'dist/healthcheck.js', 'dist/migrations/1-First.js']) {
      write(path, sources + 60);
    }
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('is fresh when every built file exists and no source is newer than dist/main.js', () => {
    expect(staleReason(root)).toBeNull();
  });

  it('is stale when a built entry point or the compiled migrations are missing', () => {
    rmSync(join(root, 'dist/cli.js'));
    expect(staleReason(root)).toBe('dist/cli.js is missing');
    write('dist/cli.js', 1_700_000_060);
    rmSync(join(root, 'dist/migrations'), { recursive: true });
    expect(staleReason(root)).toBe('dist/migrations is missing');
  });

  it.each([
    ['src/common/deep/file.ts', 'src'],
    ['migrations/1-First.ts', 'migrations'],
    ['package.json', 'package.json'],
  ])('is stale when %s is newer than dist/main.js', (path, source) => {
    touch(path, 1_700_000_120);
    expect(staleReason(root)).toBe(`${source} is newer than dist/`);
  });
});

describe('npm start', () => {
  it('starts the API from dist/ without building when dist/ is up to date', async () => {
    // The test run's set-up has just built dist/ if it was stale.
    expect(staleReason(ROOT)).toBeNull();
    const builtAt = statSync(join(ROOT, 'dist/main.js')).mtimeMs;
    const port = await freePort();
    const api = BuiltProcess.run('npm start', 'npm', ['start'], { PORT: String(port), WORKERS: 'off' }, { ownGroup: true });
    try {
      await api.waitUntilLive(`http://127.0.0.1:${port}`);
      // `npm run build` would have said so (npm prints each script it runs) and replaced dist/.
      expect(api.output).not.toMatch(/> \S+ build\b|building/);
      expect(statSync(join(ROOT, 'dist/main.js')).mtimeMs).toBe(builtAt);
      expect(api.output).toContain('> node scripts/build-if-stale.js && node dist/main.js');
    } finally {
      api.signalGroup('SIGTERM');
      await api.exited;
    }
  }, 120_000);
});
