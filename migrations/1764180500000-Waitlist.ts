import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Waitlist: patients waiting for an earlier slot of a type, and the offers made to them when time is freed.
 * - waitlist_entries: UQ_WAITLIST_ENTRIES_ACTIVE keeps one waiting (or offered) entry per patient and type;
 *   IDX_WAITLIST_ENTRIES_WAITING answers "the oldest waiting entries" for a freeing.
 * - waitlist_offers: one slot offered to one entry, kept by a hold. `freeing_id` names the freeing that made
 *   it (an appointment's time, or the offer declined or expired before it); UQ_WAITLIST_OFFERS_FREEING is
 *   what makes a freeing handled once however often its job runs. `token` is the patient's link.
 * - appointment_types gain waitlist_offer_minutes: how long an offer keeps its slot.
 */
export class Waitlist1764180500000 implements MigrationInterface {
  name = 'Waitlist1764180500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE appointment_types ADD COLUMN waitlist_offer_minutes integer NOT NULL DEFAULT 60 CHECK (waitlist_offer_minutes BETWEEN 5 AND 1440)`,
    );
    await q.query(`
      CREATE TABLE waitlist_entries (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        patient_id uuid NOT NULL REFERENCES patients(id) ON DELETE CASCADE,
        appointment_type_id uuid NOT NULL REFERENCES appointment_types(id),
        provider_ids uuid[] NOT NULL DEFAULT '{}',
        earliest_date date,
        latest_date date,
        windows jsonb NOT NULL DEFAULT '[]',
        appointment_id uuid REFERENCES appointments(id) ON DELETE SET NULL,
        status varchar(9) NOT NULL CHECK (status IN ('waiting', 'offered', 'booked', 'cancelled', 'expired')),
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query(
      `CREATE UNIQUE INDEX "UQ_WAITLIST_ENTRIES_ACTIVE" ON waitlist_entries (tenant_id, mode, patient_id, appointment_type_id) WHERE status IN ('waiting', 'offered')`,
    );
    await q.query(
      `CREATE INDEX "IDX_WAITLIST_ENTRIES_WAITING" ON waitlist_entries (tenant_id, mode, created_at, id) WHERE status = 'waiting'`,
    );
    await q.query(`CREATE INDEX "IDX_WAITLIST_ENTRIES_TENANT_MODE_CREATED" ON waitlist_entries (tenant_id, mode, created_at, id)`);
    await q.query(`
      CREATE TABLE waitlist_offers (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        entry_id uuid NOT NULL REFERENCES waitlist_entries(id) ON DELETE CASCADE,
        freeing_id uuid NOT NULL,
        hold_id uuid NOT NULL REFERENCES holds(id),
        provider_id uuid NOT NULL REFERENCES providers(id),
        starts_at timestamptz(3) NOT NULL,
        ends_at timestamptz(3) NOT NULL,
        duration integer NOT NULL,
        expires_at timestamptz(3) NOT NULL,
        token varchar(16) NOT NULL,
        status varchar(8) NOT NULL CHECK (status IN ('pending', 'accepted', 'declined', 'expired')),
        appointment_id uuid REFERENCES appointments(id) ON DELETE SET NULL,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query(`CREATE UNIQUE INDEX "UQ_WAITLIST_OFFERS_FREEING" ON waitlist_offers (freeing_id)`);
    await q.query(`CREATE UNIQUE INDEX "UQ_WAITLIST_OFFERS_TOKEN" ON waitlist_offers (token)`);
    await q.query(`CREATE INDEX "IDX_WAITLIST_OFFERS_ENTRY" ON waitlist_offers (tenant_id, mode, entry_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE waitlist_offers`);
    await q.query(`DROP TABLE waitlist_entries`);
    await q.query(`ALTER TABLE appointment_types DROP COLUMN waitlist_offer_minutes`);
  }
}
