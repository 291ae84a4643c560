import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The patients each audited answer carried (GET /patients/{id}/access-log, docs/decisions/0002-patient-access-log.md):
 * one row per (audit entry, patient), written by the audit writer's COPY in the transaction of the entries'
 * COPY. Partitioned by month on `at` like audit_log, with partitions of the same names and bounds, so that
 * retention drops a month of both together. The primary key is the order the log is read in, one
 * patient's answers newest first; an entry is found in audit_log by its own key (tenant_id, mode, at, id).
 *
 * Entries written before carried no list of patients: the answers of single-patient routes (a 2xx whose
 * resource is a patient) are filled in from audit_log, so a patient's history does not start today.
 */
export class PatientAccessLog1764070000001 implements MigrationInterface {
  name = 'PatientAccessLog1764070000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE audit_log_patients (
        tenant_id uuid NOT NULL,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        patient_id uuid NOT NULL,
        at timestamptz(3) NOT NULL,
        audit_id uuid NOT NULL,
        CONSTRAINT audit_log_patients_pkey PRIMARY KEY (tenant_id, mode, patient_id, at, audit_id)
      ) PARTITION BY RANGE (at)`);
    const partitions = (await q.query(`
      SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent = 'audit_log'::regclass AND c.relname ~ '^audit_log_p[0-9]{4}_[0-9]{2}$'`)) as { name: string; bound: string }[];
    for (const p of partitions) {
      await q.query(`CREATE TABLE ${p.name.replace(/^audit_log_/, 'audit_log_patients_')} PARTITION OF audit_log_patients ${p.bound}`);
    }
    await q.query(`CREATE TABLE audit_log_patients_default PARTITION OF audit_log_patients DEFAULT`);
    await q.query(`
      INSERT INTO audit_log_patients (tenant_id, mode, patient_id, at, audit_id)
      SELECT tenant_id, mode, resource_id::uuid, at, id FROM audit_log
       WHERE resource_type = 'patient' AND status BETWEEN 200 AND 299
         AND resource_id ~ '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE audit_log_patients`);
  }
}
