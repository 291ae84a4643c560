import { clock } from '../../src/common/time/clock';
import { dataSource, type Problem } from '../helpers/app';
import { utcDate } from '../helpers/dates';
import { createPatient, NO_RATE_LIMITS, PATIENTS } from '../helpers/patients';
import { createProvider, everyDay, SCHEDULING, type SlotUnavailable } from '../helpers/scheduling';

import { useApp } from '../helpers/use-app';

const DAY = 86_400_000;
/** How far this suite moves the clock beyond the run's own offset (CLOCK_OFFSET_MS, usually 0). */
const SHIFT = 400 * DAY;
const runOffset = clock.offsetMs();
/** A UTC date on the clock as it was before this suite moved it. */
const unmovedDate = (days: number): string => new Date(Date.now() + runOffset + days * DAY).toISOString().slice(0, 10);

describe('The clock: CLOCK_OFFSET_MS moves every business "now" of the app and the test process together', () => {
  const suite = useApp({ ...NO_RATE_LIMITS, WORKERS: 'off', CLOCK_OFFSET_MS: String(runOffset + SHIFT) });

  it('the app applies the offset at start-up, and the test process reads the same clock', async () => {
    expect(Math.abs(clock.nowMs() - (Date.now() + runOffset + SHIFT))).toBeLessThan(1000);
    const patient = await createPatient(suite.app, suite.tenant.testKey);
    expect(Math.abs(Date.parse(patient.createdAt) - clock.nowMs())).toBeLessThan(60_000);
  });

  it('availability and bookings: a day ahead of the unmoved clock is in the past of the moved one', async () => {
    const provider = await createProvider(suite.app, suite.tenant.testKey, { timezone: 'UTC', workingHours: everyDay('09:00', '17:00') });
    const patient = await createPatient(suite.app, suite.tenant.testKey);
    const slotsOn = async (day: string) =>
      (await suite.api().get<{ slots: unknown[] }>(`${SCHEDULING}/availability?providerId=${provider.id}&startDate=${day}&endDate=${day}`))
        .body.slots;
    expect(await slotsOn(unmovedDate(30))).toEqual([]);
    expect(await slotsOn(utcDate(30))).not.toEqual([]);
    const book = (day: string) =>
      suite.api().post<SlotUnavailable>(`${SCHEDULING}/book`, {
        patientId: patient.id,
        providerId: provider.id,
        datetime: `${day}T10:00:00Z`,
      });
    const refused = await book(unmovedDate(30));
    expect([refused.status, refused.body.code]).toEqual([409, 'slot_unavailable']);
    expect(Date.parse(refused.body.alternatives[0].start)).toBeGreaterThan(clock.nowMs());
    expect((await book(utcDate(30))).status).toBe(201);
  });

  it('expiry and dates of birth are judged by the moved clock', async () => {
    const keys = '/api/v1/settings/portal-access-keys';
    const stale = await suite.api().post<Problem>(keys, { name: 'stale', expiresAt: `${unmovedDate(30)}T00:00:00.000Z` });
    expect([stale.status, stale.body.errors]).toEqual([400, [{ field: 'expiresAt', message: 'must be in the future' }]]);
    expect((await suite.api().post(keys, { name: 'fresh', expiresAt: `${utcDate(30)}T00:00:00.000Z` })).status).toBe(201);
    // Born "next month" on the unmoved clock: long ago on the moved one.
    expect((await suite.api().post(PATIENTS, { firstName: 'A', lastName: 'B', dateOfBirth: unmovedDate(30) })).status).toBe(201);
    const unborn = await suite.api().post(PATIENTS, { firstName: 'A', lastName: 'B', dateOfBirth: utcDate(1) });
    expect(unborn.status).toBe(400);
  });

  it("SQL that keeps a business time takes it from the clock: an Idempotency-Key expires 24 hours after the clock's now", async () => {
    const res = await suite.api().post(PATIENTS, { firstName: 'I', lastName: 'K' }, { 'idempotency-key': 'clock-expiry' });
    expect(res.status).toBe(201);
    const [row] = await dataSource(suite.app).query<{ created: Date; expires: Date }[]>(
      `SELECT created_at AS created, expires_at AS expires FROM idempotency_keys WHERE tenant_id = $1 ORDER BY created_at DESC LIMIT 1`,
      [suite.tenant.id],
    );
    expect(Math.abs(row.created.getTime() - clock.nowMs())).toBeLessThan(60_000);
    expect(row.expires.getTime() - clock.nowMs()).toBeGreaterThan(DAY - 60_000);
    expect(row.expires.getTime() - clock.nowMs()).toBeLessThanOrEqual(DAY);
  });
});
