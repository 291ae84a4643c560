import type { FastifyReply } from 'fastify';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe for HTML element content and quoted attribute values. Everything a page shows passes through it. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** A fragment of HTML whose parts were escaped where they were joined (`html` below); never built from raw input. */
export class SafeHtml {
  constructor(readonly value: string) {}
}

/** A template tag that escapes every interpolated value but a SafeHtml: `html\`<p>${name}</p>\``. */
export function html(strings: TemplateStringsArray, ...values: (string | SafeHtml)[]): SafeHtml {
  return new SafeHtml(strings.reduce((out, s, i) => out + s + (i < values.length ? render(values[i]) : ''), ''));
}

const render = (value: string | SafeHtml): string => (value instanceof SafeHtml ? value.value : escapeHtml(value));

/** How a page patients open shows its practice (settings' PageLook is one). */
export interface PageBrand {
  practiceName: string;
  /** https only: the one thing a page may load from another origin. */
  logoUrl?: string | null;
  /** A CSS hex colour for buttons and links. */
  primaryColor?: string | null;
}

const DEFAULT_COLOR = '#1d4ed8';
const DARK_TEXT = '#111827';

/** WCAG's relative luminance of a #rgb or #rrggbb colour. */
function luminance(hex: string): number {
  const digits = hex.length === 4 ? [...hex.slice(1)].map((c) => c + c) : [hex.slice(1, 3), hex.slice(3, 5), hex.slice(5, 7)];
  const [r, g, b] = digits.map((d) => {
    const c = parseInt(d, 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG's contrast ratio between a colour and white. */
const contrastWithWhite = (hex: string): number => 1.05 / (luminance(hex) + 0.05);

/**
 * A practice's colour as the page uses it, keeping text readable (WCAG AA, 4.5:1): links take it only when
 * it reads on white, and a button's label is white or dark, whichever reads on it.
 */
function palette(color: string): { link: string; button: string; label: string } {
  const onWhite = contrastWithWhite(color);
  const onDark = (luminance(color) + 0.05) / (luminance(DARK_TEXT) + 0.05);
  return { link: onWhite >= 4.5 ? color : DARK_TEXT, button: color, label: onWhite >= onDark ? '#fff' : DARK_TEXT };
}

/**
 * A standalone page for patients who follow a link or open the booking page: no script, inline styles only,
 * readable from a 360 px wide screen up; forms post to this origin. With `brand`, it carries the practice's
 * name, logo and colour in a header, so every page a patient opens looks like the same practice's.
 */
export function htmlPage(title: string, body: SafeHtml, brand?: PageBrand): string {
  const colors = palette(brand?.primaryColor ?? DEFAULT_COLOR);
  const header = brand
    ? html`<header>
        ${brand.logoUrl ? html`<img src="${brand.logoUrl}" alt="" height="40" />` : html``}<span>${brand.practiceName}</span>
      </header>`
    : html``;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 40rem; margin: 0 auto; padding: 1rem; color: #1f2937; line-height: 1.5; overflow-wrap: anywhere; }
header { display: flex; align-items: center; gap: 0.75rem; padding: 0.5rem 0 1rem; border-bottom: 1px solid #e5e7eb; margin-bottom: 1rem; font-weight: 600; font-size: 1.125rem; }
header img { max-height: 40px; width: auto; }
h1 { font-size: 1.5rem; line-height: 1.25; }
a { color: ${escapeHtml(colors.link)}; }
.row { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 0.5rem; }
.row form { margin: 0; }
input { font: inherit; padding: 0.5rem; width: 100%; max-width: 24rem; box-sizing: border-box; border: 1px solid #6b7280; border-radius: 0.3rem; }
.error { color: #b91c1c; }
.hp { position: absolute; left: -10000px; width: 1px; height: 1px; overflow: hidden; }
button { font: inherit; padding: 0.6rem 1.2rem; border: 0; border-radius: 0.4rem; background: ${escapeHtml(colors.button)}; color: ${colors.label}; cursor: pointer; min-height: 44px; }
</style>
</head>
<body>
${header.value}
<main>
${body.value}
</main>
</body>
</html>
`;
}

/**
 * The Content-Security-Policy of a page patients open, replacing the app's: nothing but its own styles,
 * images from this origin and the practice's logo (https), forms to this origin, and framing only by
 * `frameAncestors` (none: nobody, `'none'`).
 */
export function pageSecurityPolicy(brand: PageBrand, frameAncestors: readonly string[] = []): string {
  const logo = brand.logoUrl ? ` ${new URL(brand.logoUrl).origin}` : '';
  return [
    `default-src 'none'`,
    `style-src 'unsafe-inline'`,
    `img-src 'self' data:${logo}`,
    `form-action 'self'`,
    `base-uri 'none'`,
    `frame-ancestors ${frameAncestors.length ? frameAncestors.join(' ') : `'none'`}`,
  ].join('; ');
}

/**
 * Marks `reply` as a page patients open: HTML, never cached, under the page Content-Security-Policy, framed
 * only by `frameAncestors` (X-Frame-Options says DENY when nobody may; it would refuse those who may).
 */
export function asPage(reply: FastifyReply, brand: PageBrand, frameAncestors: readonly string[] = []): void {
  void reply
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', pageSecurityPolicy(brand, frameAncestors));
  if (frameAncestors.length) void reply.removeHeader('x-frame-options');
  else void reply.header('x-frame-options', 'DENY');
}

/**
 * Whether the client asks for HTML before JSON (a browser following a link or posting a form): `text/html`
 * listed with a weight at least that of JSON. `*\/*` alone (curl, fetch, mail clients) is not a request for HTML.
 */
export function acceptsHtml(accept: string | undefined): boolean {
  const weights = new Map<string, number>();
  for (const part of (accept ?? '').split(',')) {
    const [type, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    weights.set(type.trim(), q === undefined ? 1 : Number(q));
  }
  const htmlWeight = weights.get('text/html') ?? 0;
  const jsonWeight = Math.max(weights.get('application/json') ?? 0, weights.get('application/problem+json') ?? 0);
  return htmlWeight > 0 && htmlWeight >= jsonWeight;
}
