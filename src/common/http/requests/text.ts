/*
 * Text PostgreSQL cannot store: NUL (refused in text and jsonb, SQLSTATE 22021 / 22P05) and unpaired
 * UTF-16 surrogates (not Unicode scalar values; the driver would write them as U+FFFD, silently changing
 * the data). In a `u` regex a well-formed pair is one code point, so \p{Cs} matches only unpaired halves.
 */
const UNSTORABLE = /[\u0000\p{Cs}]/u;
const UNSTORABLE_ALL = /[\u0000\p{Cs}]/gu;

/** Why `text` cannot be stored, or undefined when it can. */
export function unstorableTextProblem(text: string): string | undefined {
  if (!UNSTORABLE.test(text)) return undefined;
  return text.includes('\u0000') ? 'must not contain NUL characters' : 'must be valid Unicode (an unpaired surrogate)';
}

/** A key fit to quote in errors[]: unstorable characters as their \uXXXX escapes. */
export function printableKey(key: string): string {
  return UNSTORABLE.test(key) ? key.replace(UNSTORABLE_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : key;
}
