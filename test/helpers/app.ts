import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { InjectOptions } from 'fastify';
import { DataSource } from 'typeorm';
import { createApp } from '../../src/app.factory';
import { loadConfig } from '../../src/config/app-config';
import { CreatedTenant, TenantsService } from '../../src/modules/tenants/tenants.service';

/** A real app on the run's database and Redis; `env` overrides variables for this instance only. */
export async function startApp(env: Record<string, string> = {}): Promise<NestFastifyApplication> {
  return createApp(loadConfig({ ...process.env, ...env }));
}

export interface TestTenant {
  id: string;
  name: string;
  testKey: string;
  liveKey: string;
}

let tenantCounter = 0;

export async function createTenant(app: NestFastifyApplication, name = `Clinic ${++tenantCounter}`): Promise<TestTenant> {
  const created: CreatedTenant = await app.get(TenantsService).create(name);
  const key = (mode: string): string => created.apiKeys.find((k) => k.mode === mode)!.key;
  return { id: created.tenant.id, name, testKey: key('test'), liveKey: key('live') };
}

/** A JSON response body a test does not read member by member; one it reads names its type (`get<PatientDto>(…)`). */
export type Json = unknown;

/** A problem+json error body (ProblemDetailsFilter), for the requests a test expects to fail. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  code: string;
  detail?: string;
  requestId: string;
  errors?: { field: string; message: string }[];
}

export interface TestResponse<T = Json> {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: T;
  text: string;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Sends a request through Fastify (app.inject); JSON in, JSON out. */
export async function call<T = Json>(
  app: NestFastifyApplication,
  method: Method,
  url: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string>; rawBody?: string; remoteAddress?: string } = {},
): Promise<TestResponse<T>> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  const inject: InjectOptions = { method, url, headers, ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}) };
  if (options.rawBody !== undefined) {
    inject.payload = options.rawBody;
  } else if (options.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    inject.payload = JSON.stringify(options.body);
  }
  const res = await app.inject(inject);
  let body: unknown = undefined;
  if (res.body && /json/.test(String(res.headers['content-type']))) body = JSON.parse(res.body);
  return { status: res.statusCode, headers: res.headers, body: body as T, text: res.body };
}

/** A client bound to one app and key. */
export function client(app: NestFastifyApplication, key?: string) {
  return {
    get: <T = Json>(url: string, headers?: Record<string, string>) => call<T>(app, 'GET', url, { key, headers }),
    post: <T = Json>(url: string, body?: unknown, headers?: Record<string, string>) => call<T>(app, 'POST', url, { key, body, headers }),
    put: <T = Json>(url: string, body?: unknown, headers?: Record<string, string>) => call<T>(app, 'PUT', url, { key, body, headers }),
    patch: <T = Json>(url: string, body?: unknown, headers?: Record<string, string>) => call<T>(app, 'PATCH', url, { key, body, headers }),
    delete: <T = Json>(url: string, headers?: Record<string, string>) => call<T>(app, 'DELETE', url, { key, headers }),
  };
}

export function dataSource(app: NestFastifyApplication): DataSource {
  return app.get(DataSource);
}

/** Creates a key through the API with the given caller key; answers the new key's secret. */
export async function createKey(app: NestFastifyApplication, callerKey: string, body: Record<string, unknown>): Promise<string> {
  const res = await call(app, 'POST', '/api/v1/settings/portal-access-keys', { key: callerKey, body: { name: 'test key', ...body } });
  if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${res.text}`);
  return (res.body as { key: string }).key;
}
