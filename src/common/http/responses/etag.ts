import { createHash } from 'node:crypto';

/*
 * Entity tags for optimistic concurrency. A tag names one version of one resource: a short hash of the id
 * (so a tag of patient A never matches patient B) and the row's version counter. A counter, not
 * updatedAt: two writes inside one millisecond must still yield different tags, and a counter can be
 * compared in the UPDATE's WHERE clause, which makes If-Match atomic.
 */

const TAG = /^(?:W\/)?"([A-Za-z0-9_-]{8})\.(\d{1,15})"$/;
/** Versions are PostgreSQL integers; a larger one names no version (412), and must not reach a query. */
const MAX_VERSION = 2_147_483_647;

function idHash(id: string): string {
  return createHash('sha256').update(id).digest('base64url').slice(0, 8);
}

/** The ETag header value of version `version` of resource `id`, e.g. `"q2Xy8fZk.3"`. */
export function entityTag(id: string, version: number): string {
  return `"${idHash(id)}.${version}"`;
}

export interface IfMatch {
  /** `If-Match: *`: any current version matches. */
  any: boolean;
  /** The versions of this resource the header names; empty when it names none (then nothing matches). */
  versions: number[];
}

/**
 * Parses an If-Match header for resource `id`; undefined when the header is absent. Weak tags are
 * accepted as their strong form: ours are derived from a version counter, so both mean the same version.
 */
export function parseIfMatch(header: string | string[] | undefined, id: string): IfMatch | undefined {
  if (header === undefined) return undefined;
  const raw = (Array.isArray(header) ? header.join(',') : header).trim();
  if (raw === '*') return { any: true, versions: [] };
  const expected = idHash(id);
  const versions: number[] = [];
  for (const part of raw.split(',')) {
    const match = TAG.exec(part.trim());
    if (match && match[1] === expected && Number(match[2]) <= MAX_VERSION) versions.push(Number(match[2]));
  }
  return { any: false, versions };
}
