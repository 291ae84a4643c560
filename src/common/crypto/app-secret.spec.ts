import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../config/app-config';
import { APP_SECRET_FILE, readOrCreateAppSecret } from './app-secret';

describe('the application secret', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'app-secret-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is generated once into DATA_DIR with mode 0600 and read back on the next start', () => {
    const said: string[] = [];
    const dataDir = join(dir, 'data');
    const first = readOrCreateAppSecret(dataDir, (line) => said.push(line));
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(statSync(join(dataDir, APP_SECRET_FILE)).mode & 0o777).toBe(0o600);
    expect(said).toEqual([expect.stringMatching(/APP_SECRET is not set.*production/)]);
    expect(readOrCreateAppSecret(dataDir, (line) => said.push(line))).toBe(first);
    expect(said).toHaveLength(1);
    expect(readFileSync(join(dataDir, APP_SECRET_FILE), 'utf8').trim()).toBe(first);
  });

  it('tightens a file readable by others to 0600', () => {
    writeFileSync(join(dir, APP_SECRET_FILE), 'x'.repeat(40), { mode: 0o644 });
    expect(readOrCreateAppSecret(dir)).toBe('x'.repeat(40));
    expect(statSync(join(dir, APP_SECRET_FILE)).mode & 0o777).toBe(0o600);
  });

  it('refuses a file whose secret is too short', () => {
    writeFileSync(join(dir, APP_SECRET_FILE), 'short', { mode: 0o600 });
    expect(() => readOrCreateAppSecret(dir)).toThrow(ConfigError);
  });

  it('comes from APP_SECRET (with earlier ones in APP_SECRET_PREVIOUS), validated without echoing it', () => {
    const config = loadConfig({ APP_SECRET: 's'.repeat(32), APP_SECRET_PREVIOUS: `${'p'.repeat(32)},${'q'.repeat(40)}` });
    expect(config.appSecret).toBe('s'.repeat(32));
    expect(config.secrets.previous).toEqual(['p'.repeat(32), 'q'.repeat(40)]);
    expect(() => loadConfig({ APP_SECRET: 'too-short-secret' })).toThrow(/APP_SECRET must be 32-512 characters/);
    expect(() => loadConfig({ APP_SECRET: 'too-short-secret' })).not.toThrow(/too-short-secret/);
    expect(() => loadConfig({ APP_SECRET: 's'.repeat(32), APP_SECRET_PREVIOUS: 'x' })).toThrow(/APP_SECRET_PREVIOUS/);
    expect(() => loadConfig({}).appSecret).toThrow(/APP_SECRET has not been resolved/);
  });

  it('is required under NODE_ENV=production: one ConfigError naming APP_SECRET, before any file is written', () => {
    const dataDir = join(dir, 'data');
    expect(() => loadConfig({ NODE_ENV: 'production', DATA_DIR: dataDir })).toThrow(ConfigError);
    expect(() => loadConfig({ NODE_ENV: 'production', DATA_DIR: dataDir })).toThrow(
      /^APP_SECRET is required when NODE_ENV=production: [^\n]+$/,
    );
    expect(() => statSync(dataDir)).toThrow(/ENOENT/);
    expect(loadConfig({ NODE_ENV: 'production', APP_SECRET: 's'.repeat(32) }).appSecret).toBe('s'.repeat(32));
    expect(() => loadConfig({ NODE_ENV: 'development' })).not.toThrow();
  });
});
