import { Injectable, OnModuleInit } from '@nestjs/common';
import { DiscoveryService, HttpAdapterHost, MetadataScanner } from '@nestjs/core';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AUDIT_METADATA, AuditSpec } from '../../common/audit/audited.decorator';
import { isUuid } from '../../common/ids';
import { clock } from '../../common/time/clock';
import { AppConfig } from '../../config/app-config';
import { MAX_PATIENTS_PER_ENTRY } from './audit-copy-buffer';
import { AuditWriter } from './audit.writer';
import { patientsCarried } from './patients-carried';

/**
 * Turns every answered request to an `@Audited` route into an audit entry. An `onResponse` hook sees the
 * final status of every outcome, the guards' 403 and 429 included; requests without a verified key
 * (401) have no tenant to record them for, except on public routes that name theirs (auditAs). The entry is buffered, never awaited by the request.
 *
 * A successful answer's entry also lists the patients whose data it carried (GET /patients/{id}/access-log):
 * a `preSerialization` hook reads them in the JSON answer before it is serialised (patientsCarried), and a
 * patient route's path names its patient. Only audited routes with a key pay for it.
 */
@Injectable()
export class AuditHook implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly writer: AuditWriter,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.assertSpecsReachRoutes();
    if (!this.config.audit.enabled) return;
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    fastify?.addHook('onResponse', (request, reply, done) => {
      this.record(request, reply);
      done();
    });
    if (!this.config.audit.patientAccessLog) return;
    fastify?.addHook('preSerialization', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done) => {
      if (request.routeOptions.config?.audit && request.auth && reply.statusCode < 300) {
        const found = patientsCarried(payload, MAX_PATIENTS_PER_ENTRY, new Set(request.auditPatients));
        if (found.size) request.auditPatients = [...found];
      }
      done(null, payload);
    });
  }

  record(request: FastifyRequest, reply: FastifyReply): void {
    const spec = request.routeOptions.config?.audit;
    const auth = request.auth;
    const scope = auth ?? request.auditScope;
    if (!spec || !scope) return;
    const subjects = auth ? undefined : request.auditSubjects;
    const entries = subjects?.length
      ? subjects
      : [{ scope, resourceId: spec.resourceId ?? request.auditResourceId ?? resourceIdOf(request, reply, spec.idParam) }];
    const patientIds = reply.statusCode < 300 && this.config.audit.patientAccessLog ? this.patientsOf(request, spec) : undefined;
    for (const entry of entries) {
      this.writer.write({
        tenantId: entry.scope.tenantId,
        mode: entry.scope.mode,
        at: clock.nowMs(),
        apiKeyId: auth?.apiKeyId ?? null,
        action: spec.action,
        resourceType: spec.resourceType,
        resourceId: entry.resourceId,
        status: reply.statusCode,
        requestId: String(request.id).slice(0, 128),
        ip: request.ip?.slice(0, 64) ?? null,
        patientIds,
      });
    }
  }

  /** The patients the answer carried: found in it, named by the route, and a patient route's own patient. */
  private patientsOf(request: FastifyRequest, spec: AuditSpec): string[] | undefined {
    const carried = request.auditPatients;
    const own = spec.resourceType === 'patient' ? (request.params as Record<string, string> | undefined)?.[spec.idParam] : undefined;
    if (!isUuid(own) || carried?.includes(own.toLowerCase())) return carried;
    return [own.toLowerCase(), ...(carried ?? [])];
  }

  /** A `@RouteConfig` written above `@Audited` replaces the route config it merged into: refuse to start. */
  private assertSpecsReachRoutes(): void {
    for (const wrapper of this.discovery.getControllers()) {
      const prototype = wrapper.metatype?.prototype as Record<string, object> | undefined;
      if (!prototype) continue;
      for (const name of this.scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name];
        if (!Reflect.getMetadata(AUDIT_METADATA, handler)) continue;
        const config = Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, handler) as { audit?: unknown } | undefined;
        if (!config?.audit) throw new Error(`${wrapper.name}.${name}: @RouteConfig overwrote @Audited; write @Audited above it`);
      }
    }
  }
}

/** The path parameter naming the resource, else the id at the end of a create's (or accepted job's) Location. */
function resourceIdOf(request: FastifyRequest, reply: FastifyReply, idParam: string): string | null {
  const params = request.params as Record<string, string> | undefined;
  const fromPath = params?.[idParam];
  if (fromPath) return fromPath.slice(0, 255);
  const location = reply.getHeader('location');
  if (typeof location === 'string' && (reply.statusCode === 201 || reply.statusCode === 202))
    return location.split('/').pop()?.slice(0, 255) || null;
  return null;
}
