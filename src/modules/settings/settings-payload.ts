import { ApiException, FieldError, ValidationFailedException } from '../../common/http/errors/problem';

export const MAX_SETTINGS_BYTES = 64 * 1024;
export const MAX_SETTINGS_DEPTH = 10;
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export interface SettingsPatch {
  set: Record<string, unknown>;
  deleted: string[];
}

/**
 * Checks a settings body: a JSON object (not an array), at most 64 KiB serialised and 10 levels deep,
 * no prototype keys at any depth. Top-level `null` values mean "delete this key".
 */
export function parseSettingsPatch(body: unknown): SettingsPatch {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ValidationFailedException([{ field: 'body', message: 'must be a JSON object' }]);
  }
  const size = Buffer.byteLength(JSON.stringify(body));
  if (size > MAX_SETTINGS_BYTES) {
    throw new ApiException(
      413,
      'payload_too_large',
      'Payload too large',
      `Settings are limited to ${MAX_SETTINGS_BYTES} bytes (got ${size})`,
    );
  }
  const errors: FieldError[] = [];
  walk(body, '', 1, errors);
  if (errors.length) throw new ValidationFailedException(errors);

  const set: Record<string, unknown> = {};
  const deleted: string[] = [];
  for (const [key, value] of Object.entries(body)) {
    if (value === null) deleted.push(key);
    else set[key] = value;
  }
  return { set, deleted };
}

function walk(value: unknown, path: string, depth: number, errors: FieldError[]): void {
  if (typeof value !== 'object' || value === null) return;
  if (depth > MAX_SETTINGS_DEPTH) {
    errors.push({ field: path, message: `nests deeper than ${MAX_SETTINGS_DEPTH} levels` });
    return;
  }
  for (const [key, child] of Object.entries(value)) {
    const childPath = path ? `${path}.${key}` : key;
    if (FORBIDDEN_KEYS.has(key)) errors.push({ field: childPath, message: 'is a forbidden key' });
    else walk(child, childPath, depth + 1, errors);
  }
}
