import { apiPath, renderResponse } from './response-headers';

describe('renderResponse (route decorators → headers)', () => {
  it('builds Location under the API prefix from the body and path parameters', () => {
    const spec = { location: (body: { id: string }, params: Record<string, string>) => ['patients', params.id, 'notes', body.id] };
    expect(renderResponse(spec as never, { id: 'n1' }, { id: 'p1' })).toEqual({
      body: { id: 'n1' },
      headers: { location: '/api/v1/patients/p1/notes/n1' },
    });
  });

  it('unwraps a tagged result into its body and ETag, and Location reads the unwrapped body', () => {
    const spec = { etag: true, noStore: true, location: (body: { id: string }) => ['patients', body.id] };
    expect(renderResponse(spec as never, { body: { id: 'p1' }, etag: '"abc.1"' })).toEqual({
      body: { id: 'p1' },
      headers: { etag: '"abc.1"', location: '/api/v1/patients/p1', 'cache-control': 'no-store' },
    });
  });

  it('sets no Location when the function answers none', () => {
    expect(renderResponse({ location: () => undefined }, { jobId: null }).headers).toEqual({});
  });

  it('encodes each segment', () => {
    expect(apiPath('forms', 'a b/c')).toBe('/api/v1/forms/a%20b%2Fc');
  });
});
