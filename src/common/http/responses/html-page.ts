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

/**
 * A small standalone page for people who follow a link from an email (no script, inline styles only, as the
 * app's Content-Security-Policy allows; forms post to this origin, which `form-action 'self'` allows).
 */
export function htmlPage(title: string, body: SafeHtml): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 32rem; margin: 4rem auto; padding: 0 1rem; color: #1f2937; line-height: 1.5; }
button { font: inherit; padding: 0.6rem 1.2rem; border: 0; border-radius: 0.4rem; background: #1d4ed8; color: #fff; cursor: pointer; }
</style>
</head>
<body>
${body.value}
</body>
</html>
`;
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
