import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../config/app-config';

export const APP_SECRET_FILE = 'app-secret';

/**
 * The application secret when APP_SECRET is unset: generated once (32 random bytes) into
 * `<DATA_DIR>/app-secret` with mode 0600 and read from there on every later start, so that a
 * zero-config `npm start` works and a restart can still open what the last run encrypted.
 * Production sets APP_SECRET instead (docs/operations.md): a file beside the data is no protection for the data.
 */
export function readOrCreateAppSecret(dataDir: string, say: (line: string) => void = () => undefined): string {
  const file = join(dataDir, APP_SECRET_FILE);
  mkdirSync(dataDir, { recursive: true });
  const draft = `${file}.${process.pid}.tmp`;
  writeFileSync(draft, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600 });
  try {
    // link() publishes the complete file or fails if one exists: processes starting together share one secret.
    linkSync(draft, file);
    say(`APP_SECRET is not set: generated one in ${file} (set APP_SECRET in production)`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    unlinkSync(draft);
  }
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  const secret = readFileSync(file, 'utf8').trim();
  if (secret.length < 32) throw new ConfigError(`Invalid application secret in ${file}: shorter than 32 characters`);
  return secret;
}
