import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The events outbox, webhook endpoints with their deliveries and attempts, and the audit log.
 *
 * - events: written in the transaction of the change that causes it. IDX_EVENTS_TENANT_MODE_CREATED and
 *   IDX_EVENTS_TENANT_MODE_TYPE_CREATED serve GET /events (newest first, optionally one type);
 *   IDX_EVENTS_UNDISPATCHED is the relay's queue: only events not yet fanned out are in it, so it stays
 *   a few rows long however large the table grows.
 * - webhook_deliveries: one row per (event, endpoint), UQ_WEBHOOK_DELIVERIES_EVENT_ENDPOINT, so that two
 *   relays can never create a second delivery of one event to one endpoint. IDX_WEBHOOK_DELIVERIES_DUE
 *   lists pending deliveries by due time for the sweep that re-enqueues ones whose job was lost.
 * - webhook_delivery_attempts: every attempt, UQ_WEBHOOK_ATTEMPTS_DELIVERY_ATTEMPT (one row per number).
 * - audit_log: append-only; IDX_AUDIT_LOG_TENANT_MODE_AT pages it newest first, the resource and key
 *   indexes serve the resourceId and apiKeyId filters.
 */
export class EventsWebhooksAudit1763950000000 implements MigrationInterface {
  name = 'EventsWebhooksAudit1763950000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE events (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        type varchar(64) NOT NULL,
        payload jsonb NOT NULL,
        created_at timestamptz(3) NOT NULL,
        dispatched_at timestamptz(3)
      )`);
    await q.query(`CREATE INDEX "IDX_EVENTS_TENANT_MODE_CREATED" ON events (tenant_id, mode, created_at, id)`);
    await q.query(`CREATE INDEX "IDX_EVENTS_TENANT_MODE_TYPE_CREATED" ON events (tenant_id, mode, type, created_at, id)`);
    await q.query(`CREATE INDEX "IDX_EVENTS_UNDISPATCHED" ON events (id) WHERE dispatched_at IS NULL`);

    await q.query(`
      CREATE TABLE webhook_endpoints (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        url varchar(2048) NOT NULL,
        description varchar(500),
        events text[] NOT NULL,
        secret varchar(100) NOT NULL,
        previous_secret varchar(100),
        previous_secret_expires_at timestamptz(3),
        enabled boolean NOT NULL,
        disabled_at timestamptz(3),
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query(`CREATE INDEX "IDX_WEBHOOK_ENDPOINTS_TENANT_MODE_CREATED" ON webhook_endpoints (tenant_id, mode, created_at, id)`);

    await q.query(`
      CREATE TABLE webhook_deliveries (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        endpoint_id uuid NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
        event_id uuid NOT NULL REFERENCES events(id) ON DELETE CASCADE,
        status varchar(10) NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
        attempt_count integer NOT NULL,
        max_attempts integer NOT NULL,
        next_attempt_at timestamptz(3),
        lease_until timestamptz(3),
        last_status_code integer,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query(`CREATE UNIQUE INDEX "UQ_WEBHOOK_DELIVERIES_EVENT_ENDPOINT" ON webhook_deliveries (event_id, endpoint_id)`);
    await q.query(
      `CREATE INDEX "IDX_WEBHOOK_DELIVERIES_ENDPOINT_CREATED" ON webhook_deliveries (tenant_id, mode, endpoint_id, created_at, id)`,
    );
    await q.query(`CREATE INDEX "IDX_WEBHOOK_DELIVERIES_DUE" ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`);

    await q.query(`
      CREATE TABLE webhook_delivery_attempts (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        delivery_id uuid NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
        attempt integer NOT NULL,
        started_at timestamptz(3) NOT NULL,
        status_code integer,
        duration_ms integer NOT NULL,
        response_body text,
        error varchar(200)
      )`);
    await q.query(`CREATE UNIQUE INDEX "UQ_WEBHOOK_ATTEMPTS_DELIVERY_ATTEMPT" ON webhook_delivery_attempts (delivery_id, attempt)`);

    await q.query(`
      CREATE TABLE audit_log (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        at timestamptz(3) NOT NULL,
        api_key_id uuid NOT NULL,
        action varchar(64) NOT NULL,
        resource_type varchar(32) NOT NULL,
        resource_id varchar(255),
        status smallint NOT NULL,
        request_id varchar(128) NOT NULL,
        ip varchar(64)
      )`);
    await q.query(`CREATE INDEX "IDX_AUDIT_LOG_TENANT_MODE_AT" ON audit_log (tenant_id, mode, at, id)`);
    await q.query(
      `CREATE INDEX "IDX_AUDIT_LOG_TENANT_MODE_RESOURCE" ON audit_log (tenant_id, mode, resource_id, at) WHERE resource_id IS NOT NULL`,
    );
    await q.query(`CREATE INDEX "IDX_AUDIT_LOG_TENANT_MODE_KEY" ON audit_log (tenant_id, mode, api_key_id, at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE audit_log`);
    await q.query(`DROP TABLE webhook_delivery_attempts`);
    await q.query(`DROP TABLE webhook_deliveries`);
    await q.query(`DROP TABLE webhook_endpoints`);
    await q.query(`DROP TABLE events`);
  }
}
