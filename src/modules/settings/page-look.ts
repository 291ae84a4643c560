import { FieldError } from '../../common/http/errors/problem';

/** How the pages patients open present the practice, read from its practice and brand settings. */
export interface PageLook {
  practiceName: string;
  /** An https URL (the only thing a page loads from another origin), or null. */
  logoUrl: string | null;
  /** A CSS hex colour, or null for the default. */
  primaryColor: string | null;
  /** The origins that may frame the booking page (none: nobody may). */
  embedOrigins: string[];
}

/** The most origins `embedOrigins` names. */
export const MAX_EMBED_ORIGINS = 20;
const HEX_COLOR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;

/** Why `value` is no logo a page may load (an https URL of at most 2,048 characters), or null. */
function logoUrlError(value: unknown): string | null {
  const message = 'must be an https URL (the booking page loads nothing else from another origin)';
  if (typeof value !== 'string' || value.length > 2048) return message;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && !url.username && !url.password ? null : message;
  } catch {
    return message;
  }
}

/** The origin `value` names (`https://www.example.com[:port]`, nothing after it), or null. */
function originOf(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 300) return null;
  try {
    const url = new URL(value);
    const bare = (url.pathname === '/' || url.pathname === '') && !url.search && !url.hash && !url.username && !url.password;
    return (url.protocol === 'https:' || url.protocol === 'http:') && bare && !value.endsWith('/') ? url.origin : null;
  } catch {
    return null;
  }
}

function embedOriginsError(value: unknown): string | null {
  if (!Array.isArray(value) || value.length > MAX_EMBED_ORIGINS || value.some((v) => originOf(v) === null)) {
    return `must be a list of at most ${MAX_EMBED_ORIGINS} origins (["https://www.example.com"]: scheme, host and port only)`;
  }
  return null;
}

/** The brand settings the pages read, checked when written; every other key is the tenant's own. */
export function brandSettingsErrors(set: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  const logo = Object.hasOwn(set, 'logoUrl') ? logoUrlError(set.logoUrl) : null;
  if (logo) errors.push({ field: 'logoUrl', message: logo });
  if (Object.hasOwn(set, 'primaryColor') && !(typeof set.primaryColor === 'string' && HEX_COLOR.test(set.primaryColor))) {
    errors.push({ field: 'primaryColor', message: 'must be a hex colour (#0F766E)' });
  }
  return errors;
}

/** `embedOrigins` of the practice settings, checked when written. */
export function embedOriginsErrors(set: Record<string, unknown>): FieldError[] {
  const message = Object.hasOwn(set, 'embedOrigins') ? embedOriginsError(set.embedOrigins) : null;
  return message ? [{ field: 'embedOrigins', message }] : [];
}

/** The look as stored; a value written before it was checked, and no longer valid, is left out. */
export function pageLookOf(practiceName: string, practice: Record<string, unknown>, brand: Record<string, unknown>): PageLook {
  const origins = Array.isArray(practice.embedOrigins) ? practice.embedOrigins.map(originOf) : [];
  return {
    practiceName,
    logoUrl: logoUrlError(brand.logoUrl) ? null : (brand.logoUrl as string),
    primaryColor: typeof brand.primaryColor === 'string' && HEX_COLOR.test(brand.primaryColor) ? brand.primaryColor : null,
    embedOrigins: origins.filter((o): o is string => o !== null).slice(0, MAX_EMBED_ORIGINS),
  };
}
