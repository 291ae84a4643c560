import SwaggerParser from '@apidevtools/swagger-parser';
import type { OpenAPIObject } from '@nestjs/swagger';
import type { HealthCheckResult } from '@nestjs/terminus';
import { call, createTenant } from '../helpers/app';
import { inline, operationsOf, parserCopy } from '../helpers/openapi';
import { useApp } from '../helpers/use-app';

describe('Platform: health, metrics, OpenAPI, security headers', () => {
  const suite = useApp();

  it('GET /health/live and /health/ready answer 200 without a key', async () => {
    expect((await call(suite.app, 'GET', '/health/live')).body).toEqual({ status: 'ok' });
    const ready = await call<HealthCheckResult>(suite.app, 'GET', '/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.details).toMatchObject({ database: { status: 'up' }, redis: { status: 'up' } });
  });

  it('GET /metrics exposes request counts and latency by route template and status, without ids', async () => {
    const tenant = await createTenant(suite.app);
    await suite.api(tenant.testKey).delete('/api/v1/settings/portal-access-keys/0190c1c5-0000-7000-8000-000000000001');
    const res = await call(suite.app, 'GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toMatch(
      /http_requests_total\{method="DELETE",route="\/api\/v1\/settings\/portal-access-keys\/:keyId",status="404"\} 1/,
    );
    expect(res.text).toContain('http_request_duration_seconds_bucket');
    expect(res.text).not.toContain('0190c1c5-0000-7000-8000-000000000001');
  });

  it('serves Swagger UI at /api/docs', async () => {
    const res = await call(suite.app, 'GET', '/api/docs');
    expect(res.status).toBe(200);
    expect(res.text).toContain('swagger-ui');
  });

  it('serves a valid OpenAPI 3 document with bearer security and problem responses on every keyed route', async () => {
    const res = await call<OpenAPIObject>(suite.app, 'GET', '/api/docs-json');
    expect(res.status).toBe(200);
    const doc = res.body;
    await expect(SwaggerParser.validate(parserCopy(doc))).resolves.toBeDefined();
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.components?.securitySchemes?.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    const operations = operationsOf(doc);
    // /api/v1/public/… (booking pages, unsubscribe) take no key.
    const keyed = operations.filter(({ path }) => path.startsWith('/api/v1/') && !path.startsWith('/api/v1/public/'));
    expect(keyed.length).toBeGreaterThan(5);
    for (const { path, method, op } of keyed) {
      const where = `${method.toUpperCase()} ${path}`;
      expect([where, op.security]).toEqual([where, [{ apiKey: [] }]]);
      expect([where, inline(op.responses['401'])?.content?.['application/problem+json']]).toEqual([where, expect.anything()]);
      const success = Object.keys(op.responses).filter((s) => s.startsWith('2'));
      expect([where, success.length > 0]).toEqual([where, true]);
      expect([where, inline(op.responses[success[0]])?.content ?? success[0] === '204']).toEqual([where, expect.anything()]);
      if (method === 'post' || method === 'put') expect([where, op.requestBody]).toEqual([where, expect.anything()]);
    }
    expect(inline(doc.components?.schemas?.CreateApiKeyDto)?.properties?.name).toMatchObject({
      type: 'string',
      minLength: 1,
      maxLength: 100,
    });
  });

  it('sends security headers', async () => {
    const res = await call(suite.app, 'GET', '/health/live');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    // HSTS only when PUBLIC_URL is https (cors.e2e-spec.ts); the rest of helmet's headers always.
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
  });
});
