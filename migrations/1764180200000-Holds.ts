import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Holds: a provider's time kept for a while (a patient typing their details), booked for everyone else.
 * - provider_time_claims: every span of a provider's time that is taken, one row per active (scheduled or
 *   confirmed) appointment and per active hold, with the id of the appointment or hold that takes it.
 *   EX_PROVIDER_TIME_CLAIMS, an exclusion constraint (GiST, btree_gist for the uuid equality) on it, is what
 *   makes holds and bookings race-safe against each other: of racing writes of one provider's time the
 *   loser's statement fails with 23P01, whichever of the two kinds each is.
 * - The claims are kept by triggers on appointments and holds (provider_time_claims_sync), in the statement
 *   that changes the row, so every path that books, moves, cancels or ends an appointment is covered without
 *   knowing of claims, and a claim cannot outlive its row. Claims of active appointments are back-filled.
 * - EX_APPOINTMENTS_PROVIDER_ACTIVE_TIME stays: its partial GiST index is the one that answers "a provider's
 *   active appointments near a range" for availability and the booking checks, and it refuses an overlap of
 *   two appointments even if the trigger were ever disabled. An appointment's insert then meets it first,
 *   and a hold's time only in the claims; both answer the same 409.
 * - IDX_HOLDS_TENANT_MODE_PROVIDER_ACTIVE: a provider's active holds near a range, read beside its appointments.
 */
export class Holds1764180200000 implements MigrationInterface {
  name = 'Holds1764180200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE holds (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        provider_id uuid NOT NULL REFERENCES providers(id),
        starts_at timestamptz(3) NOT NULL,
        ends_at timestamptz(3) NOT NULL,
        duration integer NOT NULL CHECK (duration BETWEEN 5 AND 480),
        appointment_type_id uuid REFERENCES appointment_types(id),
        scheduler_id uuid,
        expires_at timestamptz(3) NOT NULL,
        status varchar(8) NOT NULL CHECK (status IN ('active', 'consumed', 'released', 'expired')),
        appointment_id uuid REFERENCES appointments(id) ON DELETE SET NULL,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL,
        CHECK (ends_at > starts_at)
      )`);
    await q.query(
      `CREATE INDEX "IDX_HOLDS_TENANT_MODE_PROVIDER_ACTIVE" ON holds (tenant_id, mode, provider_id, starts_at) WHERE status = 'active'`,
    );

    await q.query(`
      CREATE TABLE provider_time_claims (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        kind varchar(11) NOT NULL CHECK (kind IN ('appointment', 'hold')),
        provider_id uuid NOT NULL,
        during tstzrange NOT NULL,
        CONSTRAINT "EX_PROVIDER_TIME_CLAIMS" EXCLUDE USING gist (provider_id WITH =, during WITH &&)
      )`);

    // TG_ARGV: the claim's kind, then the statuses in which the row takes its time.
    await q.query(`
      CREATE FUNCTION provider_time_claims_sync() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        was_active boolean := TG_OP <> 'INSERT' AND OLD.status = ANY (TG_ARGV[1:]);
        is_active boolean := TG_OP <> 'DELETE' AND NEW.status = ANY (TG_ARGV[1:]);
      BEGIN
        IF was_active AND is_active THEN
          IF (OLD.provider_id, OLD.starts_at, OLD.ends_at) IS DISTINCT FROM (NEW.provider_id, NEW.starts_at, NEW.ends_at) THEN
            UPDATE provider_time_claims SET provider_id = NEW.provider_id, during = tstzrange(NEW.starts_at, NEW.ends_at, '[)')
             WHERE id = NEW.id;
          END IF;
        ELSIF was_active THEN
          DELETE FROM provider_time_claims WHERE id = OLD.id;
        ELSIF is_active THEN
          INSERT INTO provider_time_claims (id, tenant_id, mode, kind, provider_id, during)
          VALUES (NEW.id, NEW.tenant_id, NEW.mode, TG_ARGV[0], NEW.provider_id, tstzrange(NEW.starts_at, NEW.ends_at, '[)'));
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER appointments_claim_time
        AFTER INSERT OR DELETE OR UPDATE OF status, provider_id, starts_at, ends_at ON appointments
        FOR EACH ROW EXECUTE FUNCTION provider_time_claims_sync('appointment', 'scheduled', 'confirmed')`);
    await q.query(`
      CREATE TRIGGER holds_claim_time
        AFTER INSERT OR DELETE OR UPDATE OF status, provider_id, starts_at, ends_at ON holds
        FOR EACH ROW EXECUTE FUNCTION provider_time_claims_sync('hold', 'active')`);

    // EX_APPOINTMENTS_PROVIDER_ACTIVE_TIME already kept these apart, so the back-fill cannot conflict.
    await q.query(`
      INSERT INTO provider_time_claims (id, tenant_id, mode, kind, provider_id, during)
      SELECT id, tenant_id, mode, 'appointment', provider_id, tstzrange(starts_at, ends_at, '[)')
        FROM appointments WHERE status IN ('scheduled', 'confirmed')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER holds_claim_time ON holds`);
    await q.query(`DROP TRIGGER appointments_claim_time ON appointments`);
    await q.query(`DROP FUNCTION provider_time_claims_sync()`);
    await q.query(`DROP TABLE provider_time_claims`);
    await q.query(`DROP TABLE holds`);
  }
}
