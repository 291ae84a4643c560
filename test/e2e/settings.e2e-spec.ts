import { call, client, createKey, type Problem } from '../helpers/app';
import { useApp } from '../helpers/use-app';
import type { SettingsDto, SettingsUpdatedDto } from '../../src/modules/settings/dto/settings.dto';

describe('Settings: portal, practice, brand', () => {
  const suite = useApp();

  it.each(['portal', 'practice', 'brand'])('%s starts empty, merges top-level keys and deletes null ones', async (section) => {
    const api = suite.api();
    const url = `/api/v1/settings/${section}`;
    expect((await api.get(url)).body).toEqual({ settings: {}, updatedAt: null });

    const first = await api.post(url, { timezone: 'Europe/London', hours: { mon: ['09:00', '17:00'] }, legacy: true });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      message: 'Settings updated',
      settings: { timezone: 'Europe/London', hours: { mon: ['09:00', '17:00'] }, legacy: true },
    });

    const second = await api.post<SettingsUpdatedDto>(url, { hours: { tue: ['10:00', '16:00'] }, legacy: null, currency: 'GBP' });
    expect(second.body.settings).toEqual({ timezone: 'Europe/London', hours: { tue: ['10:00', '16:00'] }, currency: 'GBP' });

    const read = await api.get<SettingsDto>(url);
    expect(read.body.settings).toEqual(second.body.settings);
    expect(new Date(read.body.updatedAt!).toISOString()).toBe(read.body.updatedAt);
  });

  it('keeps every key when concurrent updates race', async () => {
    const api = suite.api();
    await Promise.all(Array.from({ length: 25 }, (_, i) => api.post('/api/v1/settings/brand', { [`k${i}`]: i })));
    const read = await api.get<SettingsDto>('/api/v1/settings/brand');
    for (let i = 0; i < 25; i++) expect(read.body.settings[`k${i}`]).toBe(i);
  });

  it('rejects a body that is not an object', async () => {
    for (const body of [[1, 2], 'text', 42]) {
      const res = await suite.api().post('/api/v1/settings/practice', body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', errors: [{ field: 'body', message: 'must be a JSON object' }] });
    }
  });

  it('rejects settings over 64 KiB with 413', async () => {
    const res = await suite.api().post<Problem>('/api/v1/settings/practice', { big: 'x'.repeat(65 * 1024) });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('payload_too_large');
  });

  it('accepts 10 levels of nesting and rejects 11, naming the path', async () => {
    const nest = (levels: number): Record<string, unknown> => {
      let v: Record<string, unknown> = { leaf: 1 };
      for (let i = 1; i < levels; i++) v = { n: v };
      return v;
    };
    expect((await suite.api().post('/api/v1/settings/practice', nest(10))).status).toBe(200);
    const res = await suite.api().post<Problem>('/api/v1/settings/practice', nest(11));
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'n.n.n.n.n.n.n.n.n.n', message: 'nests deeper than 10 levels' }]);
  });

  it('rejects __proto__, constructor and prototype keys at any depth and writes nothing', async () => {
    const api = suite.api();
    const before = (await api.get<SettingsDto>('/api/v1/settings/portal')).body.settings;
    const proto = await call<Problem>(suite.app, 'POST', '/api/v1/settings/portal', {
      key: suite.tenant.testKey,
      rawBody: '{"ok":1,"__proto__":{"isAdmin":true}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(proto.status).toBe(400);
    expect(proto.body.code).toBe('validation_failed');
    const ctor = await api.post<Problem>('/api/v1/settings/portal', { ok: 1, nested: { constructor: { prototype: { x: 1 } } } });
    expect(ctor.status).toBe(400);
    expect(ctor.body.errors).toEqual([{ field: 'nested.constructor', message: 'is a forbidden key' }]);
    expect(proto.body.errors).toEqual([{ field: '__proto__', message: 'is a forbidden key' }]);
    const prototype = await api.post<Problem>('/api/v1/settings/portal', { prototype: 1 });
    expect(prototype.body.errors).toEqual([{ field: 'prototype', message: 'is a forbidden key' }]);
    expect((await api.get<SettingsDto>('/api/v1/settings/portal')).body.settings).toEqual(before);
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  });

  it('lets STAFF read but not write; needs settings:read / settings:write', async () => {
    const staff = await createKey(suite.app, suite.tenant.testKey, { role: 'STAFF' });
    expect((await client(suite.app, staff).get('/api/v1/settings/practice')).status).toBe(200);
    expect((await client(suite.app, staff).post<Problem>('/api/v1/settings/practice', { a: 1 })).body.code).toBe('insufficient_role');
    const readOnly = await createKey(suite.app, suite.tenant.testKey, { scopes: ['settings:read'] });
    expect((await client(suite.app, readOnly).get('/api/v1/settings/practice')).status).toBe(200);
    expect((await client(suite.app, readOnly).post<Problem>('/api/v1/settings/practice', { a: 1 })).body.code).toBe('insufficient_scope');
  });
});
