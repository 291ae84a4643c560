import { useSchemaBefore } from '../helpers/migrations';

/** The migration that moves sending numbers out of the practice settings: everything before it is the old schema. */
const SMS_NUMBERS = 1764160000000;

/**
 * The practice settings' `smsFromNumber` values a database holds when it is migrated, on a database of its own
 * held at the schema before: a valid number claimed by one tenant in a mode becomes its assignment; a number
 * two tenants claimed, or a value that is no number, goes to nobody; the key leaves every stored document.
 */
describe('Migration moving smsFromNumber into operator assignments', () => {
  const schema = useSchemaBefore(SMS_NUMBERS, 'sms_numbers');

  it('carries over the numbers one tenant claimed, and drops the setting', async () => {
    const { db } = schema;
    const practice: [string, string, Record<string, unknown>][] = [
      ['a', 'live', { name: 'A', smsFromNumber: ' +15005550301 ' }],
      ['a', 'test', { smsFromNumber: '+15005550301' }], // the same number in the other mode: a claim of its own
      ['b', 'live', { smsFromNumber: '+15005550302' }],
      ['c', 'live', { smsFromNumber: '+15005550302' }], // claimed twice: neither gets it
      ['d', 'live', { smsFromNumber: 'not a number' }],
      ['e', 'live', { smsFromNumber: 15005550303 }],
    ];
    const tenants = new Map<string, string>();
    for (const [name] of practice) {
      if (tenants.has(name)) continue;
      const { rows } = await db.query<{ id: string }>(
        `INSERT INTO tenants (id, name, created_at) VALUES (gen_random_uuid(), $1, now()) RETURNING id`,
        [name],
      );
      tenants.set(name, rows[0].id);
    }
    for (const [name, mode, data] of practice) {
      await db.query(`INSERT INTO settings (tenant_id, mode, section, data, updated_at) VALUES ($1, $2, 'practice', $3, now())`, [
        tenants.get(name),
        mode,
        JSON.stringify(data),
      ]);
    }
    await db.query(`INSERT INTO settings (tenant_id, mode, section, data, updated_at) VALUES ($1, 'live', 'portal', $2, now())`, [
      tenants.get('d'),
      JSON.stringify({ smsFromNumber: 'kept: not the practice section' }),
    ]);
    await schema.migrate();

    const assigned = await db.query<{ tenant_id: string; mode: string; number: string }>(
      `SELECT tenant_id, mode, number FROM sms_numbers ORDER BY number, mode`,
    );
    expect(assigned.rows).toEqual([
      { tenant_id: tenants.get('a'), mode: 'live', number: '+15005550301' },
      { tenant_id: tenants.get('a'), mode: 'test', number: '+15005550301' },
    ]);
    const left = await db.query<{ section: string; data: Record<string, unknown> }>(
      `SELECT section, data FROM settings WHERE data ? 'smsFromNumber' ORDER BY section`,
    );
    expect(left.rows).toEqual([{ section: 'portal', data: { smsFromNumber: 'kept: not the practice section' } }]);
    const a = await db.query<{ data: Record<string, unknown> }>(`SELECT data FROM settings WHERE tenant_id = $1 AND mode = 'live'`, [
      tenants.get('a'),
    ]);
    expect(a.rows[0].data).toEqual({ name: 'A' });
  });
});
