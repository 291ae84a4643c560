import { acceptsHtml, escapeHtml, html, htmlPage } from './html-page';

describe('html pages', () => {
  it('escapes every interpolated value, and only those', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`<p>${inner} ${'"quoted"'}</p>`.value).toBe('<p><b>&lt;i&gt;</b> &quot;quoted&quot;</p>');
    expect(htmlPage('A <title>', html`<p>ok</p>`)).toContain('<title>A &lt;title&gt;</title>');
  });

  it.each([
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', true],
    ['text/html', true],
    ['*/*', false],
    [undefined, false],
    ['application/json', false],
    ['application/json, text/html;q=0.5', false],
    ['text/html;q=0.9, application/problem+json;q=0.9', true],
    ['text/html;q=0', false],
  ])('Accept %p asks for HTML: %p', (accept, expected) => {
    expect(acceptsHtml(accept)).toBe(expected);
  });
});
