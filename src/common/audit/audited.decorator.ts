import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants.js';
import type { FastifyRequest } from 'fastify';
import type { TenantScope } from '../../database/tenant-owned.entity';
import { isUuid } from '../ids';

/** What an audited route records besides who, when, from where and the outcome. */
export interface AuditSpec {
  /** `<resourceType>.<verb>`, e.g. `patient.read`. */
  action: string;
  resourceType: string;
  /** The path parameter naming the resource (default `id`); without one, a 201's Location names it. */
  idParam: string;
  /** A fixed resource id, for a route whose path names its resource literally (`/settings/practice`). */
  resourceId?: string;
}

export const AUDIT_METADATA = 'audit';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set by @Audited; read by the audit log's onResponse hook. */
    audit?: AuditSpec;
  }
  interface FastifyRequest {
    /** The tenant and mode a keyless request acted in, once its route knows them (see auditAs). */
    auditScope?: TenantScope;
    /** The records a keyless request changed, each in its tenant and mode: one audit entry each (see auditAs). */
    auditSubjects?: { scope: TenantScope; resourceId: string }[];
    /** The resource a keyless request acted on when its path names it only by a token (see auditAs). */
    auditResourceId?: string;
    /** The patients whose data the answer carried (lower-case UUIDs), for the patient access log (see carriedPatients). */
    auditPatients?: string[];
  }
}

/**
 * Records a keyless (public) request's audit entry in this tenant and mode, with no API key. An audited
 * public route calls it as soon as it knows whose resource it serves; answers before that (a malformed
 * body, an unknown id) name no tenant and leave no entry. `resourceId` names the resource when the path
 * holds a token instead of its id.
 */
export function auditAs(request: FastifyRequest, scope: TenantScope, resourceId?: string): void {
  const { tenantId, mode } = scope;
  request.auditScope = { tenantId, mode };
  // A request that changes records without naming them in its path (a consent change by a signed link or
  // an SMS reply, possibly in several tenants) names each: one entry per record.
  if (resourceId) (request.auditSubjects ??= []).push({ scope: { tenantId, mode }, resourceId });
  if (resourceId) request.auditResourceId = resourceId;
}

/**
 * Names the patients whose data an answer carries when the audit hook cannot read them in the answer
 * itself: one that is not a JSON object (an iCalendar file). JSON answers need nothing: the hook finds
 * every patient in them (a patient, an embedded one, a `patientId`).
 */
export function carriedPatients(request: FastifyRequest, patientIds: string[]): void {
  const ids = patientIds.filter(isUuid).map((id) => id.toLowerCase());
  request.auditPatients = [...(request.auditPatients ?? []), ...ids];
}

/**
 * Every request to this route leaves an audit-log entry (key, action, resource, status, request id, IP),
 * whatever its outcome. One line per route: `@Audited('patient.read')`. The resource type defaults to
 * the action's first segment.
 *
 * The spec rides in the Fastify route config, where a hook that also sees 403/429 answers (which no
 * interceptor does) can read it. It is merged into the route config already set, so write it above a
 * `@RouteConfig(...)`; the audit module refuses to start if a later `@RouteConfig` overwrote it.
 */
export function Audited(action: string, options: { resourceType?: string; idParam?: string; resourceId?: string } = {}): MethodDecorator {
  const spec: AuditSpec = {
    action,
    resourceType: options.resourceType ?? action.split('.')[0],
    idParam: options.idParam ?? 'id',
    ...(options.resourceId ? { resourceId: options.resourceId } : {}),
  };
  return (_target, _key, descriptor) => {
    const handler = descriptor.value as object;
    Reflect.defineMetadata(AUDIT_METADATA, spec, handler);
    const config = (Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, handler) as object | undefined) ?? {};
    Reflect.defineMetadata(FASTIFY_ROUTE_CONFIG_METADATA, { ...config, audit: spec }, handler);
    return descriptor;
  };
}
