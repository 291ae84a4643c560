import { client, createKey, createTenant, type Problem } from '../helpers/app';
import { useApp } from '../helpers/use-app';
import { createPatient, NO_RATE_LIMITS, PATIENTS, waitForImport } from '../helpers/patients';
import { bookAppointment, createProvider, everyDay } from '../helpers/scheduling';
import { nextWeekday } from '../helpers/dates';
import type { BulkImportAcceptedDto } from '../../src/modules/patients/dto/bulk-import.dto';
import type { EncounterDto, MedicationDto } from '../../src/modules/patients/dto/clinical.dto';
import type { CustomFieldListDto } from '../../src/modules/patients/dto/custom-field.dto';
import type { PatientListDto, TagListDto } from '../../src/modules/patients/dto/patient.dto';

describe('Patients: custom fields, clinical data, isolation', () => {
  const suite = useApp(NO_RATE_LIMITS);
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    api = suite.api();
  });

  describe('custom field definitions', () => {
    it('creates and lists definitions of every type', async () => {
      const defs = [
        { key: 'insurer', label: 'Insurer', type: 'text' },
        { key: 'visits', label: 'Visits', type: 'number' },
        { key: 'smoker', label: 'Smoker', type: 'boolean' },
        { key: 'last_review', label: 'Last review', type: 'date' },
        { key: 'plan', label: 'Plan', type: 'select', options: ['basic', 'plus'] },
      ];
      for (const d of defs) {
        const res = await api.post(`${PATIENTS}/custom-fields`, d);
        expect(res.status).toBe(201);
        expect(res.body).toEqual({ options: null, ...d, createdAt: expect.any(String) });
      }
      const list = await api.get<CustomFieldListDto>(`${PATIENTS}/custom-fields`);
      expect(list.status).toBe(200);
      expect(list.body.fields.map((f) => f.key)).toEqual(defs.map((d) => d.key));
    });

    it('answers 409 custom_field_key_taken for a key defined already', async () => {
      const res = await api.post<Problem>(`${PATIENTS}/custom-fields`, { key: 'insurer', label: 'Again', type: 'text' });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('custom_field_key_taken');
      // the other mode has its own definitions
      expect(
        (await suite.api(suite.tenant.liveKey).post(`${PATIENTS}/custom-fields`, { key: 'insurer', label: 'L', type: 'text' })).status,
      ).toBe(201);
    });

    it.each([
      ['select without options', { key: 'a1', label: 'A', type: 'select' }, 'options'],
      ['options on a text field', { key: 'a2', label: 'A', type: 'text', options: ['x'] }, 'options'],
      ['unknown type', { key: 'a3', label: 'A', type: 'colour' }, 'type'],
      ['bad key', { key: 'Bad Key', label: 'A', type: 'text' }, 'key'],
      ['missing label', { key: 'a4', type: 'text' }, 'label'],
    ])('rejects a bad definition: %s', async (_label, body, field) => {
      const res = await api.post<Problem>(`${PATIENTS}/custom-fields`, body);
      expect(res.status).toBe(400);
      expect(res.body.errors!.map((e: { field: string }) => e.field)).toContain(field);
    });

    it('requires OWNER or ADMIN to define a field', async () => {
      const staff = await createKey(suite.app, suite.tenant.testKey, { role: 'STAFF' });
      const res = await suite.api(staff).post<Problem>(`${PATIENTS}/custom-fields`, { key: 'z', label: 'Z', type: 'text' });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('insufficient_role');
    });

    it('accepts values that fit their definitions', async () => {
      const p = await createPatient(suite.app, suite.tenant.testKey, {
        customFields: { insurer: 'Bupa', visits: 2.5, smoker: false, last_review: '2025-02-28', plan: 'plus' },
      });
      expect(p.customFields).toEqual({ insurer: 'Bupa', visits: 2.5, smoker: false, last_review: '2025-02-28', plan: 'plus' });
    });

    it.each([
      ['text given a number', { insurer: 5 }, 'customFields.insurer'],
      ['number given a string', { visits: '3' }, 'customFields.visits'],
      ['boolean given a string', { smoker: 'no' }, 'customFields.smoker'],
      ['date not a real date', { last_review: '2025-02-30' }, 'customFields.last_review'],
      ['select outside its options', { plan: 'gold' }, 'customFields.plan'],
      ['an undefined key', { favourite_colour: 'blue' }, 'customFields.favourite_colour'],
    ])('rejects a value that does not fit: %s', async (_label, customFields, field) => {
      const res = await api.post<Problem>(PATIENTS, { firstName: 'A', lastName: 'B', customFields });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([{ field, message: expect.any(String) }]);
    });
  });

  describe('clinical data', () => {
    it('records conditions, medications and encounters and reads them back', async () => {
      const p = await createPatient(suite.app, suite.tenant.testKey);
      const base = `${PATIENTS}/${p.id}/clinical`;
      const staff = suite.api(await createKey(suite.app, suite.tenant.testKey, { role: 'STAFF' }));
      // An encounter's appointment must be one of the patient's (checked by Scheduling).
      const provider = await createProvider(suite.app, suite.tenant.testKey, { timezone: 'UTC', workingHours: everyDay() });
      const booked = await bookAppointment(suite.app, suite.tenant.testKey, {
        patientId: p.id,
        providerId: provider.id,
        datetime: `${nextWeekday(1)}T09:00:00.000Z`,
      });
      const appointmentId: string = booked.id;
      const condition = await staff.post(`${base}/conditions`, {
        code: '44054006',
        codeSystem: 'http://snomed.info/sct',
        display: 'Diabetes mellitus type 2',
        onsetDate: '2019-04-02',
      });
      expect(condition.status).toBe(201);
      expect(condition.body).toEqual({
        id: expect.any(String),
        code: '44054006',
        codeSystem: 'http://snomed.info/sct',
        display: 'Diabetes mellitus type 2',
        clinicalStatus: 'active',
        onsetDate: '2019-04-02',
        recordedAt: expect.any(String),
      });
      const medication = await staff.post<MedicationDto>(`${base}/medications`, {
        name: 'Metformin 500 mg',
        dosage: 'twice daily',
        startDate: '2019-04-10',
        status: 'active',
      });
      expect(medication.status).toBe(201);
      const encounter = await staff.post<EncounterDto>(`${base}/encounters`, {
        datetime: '2026-01-05T09:30:00.000Z',
        type: 'consultation',
        reason: 'Review',
        appointmentId,
      });
      expect(encounter.status).toBe(201);
      const read = await api.get(base);
      expect(read.status).toBe(200);
      expect(read.body).toEqual({
        conditions: [condition.body],
        medications: [
          {
            id: medication.body.id,
            name: 'Metformin 500 mg',
            code: null,
            dosage: 'twice daily',
            status: 'active',
            startDate: '2019-04-10',
            endDate: null,
          },
        ],
        encounters: [
          {
            id: encounter.body.id,
            appointmentId,
            providerId: null,
            datetime: '2026-01-05T09:30:00.000Z',
            type: 'consultation',
            reason: 'Review',
            notes: null,
          },
        ],
      });
      const again = await staff.post<Problem>(`${base}/encounters`, {
        datetime: '2026-01-05T09:30:00.000Z',
        appointmentId,
      });
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('encounter_exists');
    });

    it.each([
      ['conditions', { code: 'x' }, 'display'],
      ['conditions', { display: 'x', clinicalStatus: 'cured' }, 'clinicalStatus'],
      ['conditions', { display: 'x', onsetDate: '2020-13-01' }, 'onsetDate'],
      ['medications', { dosage: 'x' }, 'name'],
      ['medications', { name: 'x', startDate: '2020-02-01', endDate: '2020-01-01' }, 'endDate'],
      ['encounters', { type: 'x' }, 'datetime'],
      ['encounters', { datetime: `${nextWeekday(1, -7)}T09:00:00Z`, providerId: 'nope' }, 'providerId'],
    ])('rejects a bad %s body: %j', async (kind, body, field) => {
      const p = await createPatient(suite.app, suite.tenant.testKey);
      const res = await api.post<Problem>(`${PATIENTS}/${p.id}/clinical/${kind}`, body);
      expect(res.status).toBe(400);
      expect(res.body.errors!.map((e: { field: string }) => e.field)).toContain(field);
    });

    it('answers 404 for an unknown patient', async () => {
      const unknown = `${PATIENTS}/0190a0a0-0000-7000-8000-000000000000/clinical`;
      expect((await api.get(unknown)).status).toBe(404);
      expect((await api.post(`${unknown}/conditions`, { display: 'x' })).status).toBe(404);
    });

    it('requires patients:write to record', async () => {
      const p = await createPatient(suite.app, suite.tenant.testKey);
      const reader = suite.api(await createKey(suite.app, suite.tenant.testKey, { scopes: ['patients:read'] }));
      const res = await reader.post<Problem>(`${PATIENTS}/${p.id}/clinical/conditions`, { display: 'x' });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('insufficient_scope');
    });
  });

  describe('isolation', () => {
    it("cannot see another tenant's patients", async () => {
      const other = await createTenant(suite.app);
      const theirs = await createPatient(suite.app, other.testKey, {
        firstName: 'Secret',
        lastName: 'Other',
        tags: ['theirs'],
        externalId: 'ext-iso',
      });
      await suite.api(other.testKey).post(`${PATIENTS}/${theirs.id}/clinical/conditions`, { display: 'x' });
      await expectInvisible(api, theirs.id, 'Secret');
    });

    it("cannot see the other mode's patients", async () => {
      const live = await createPatient(suite.app, suite.tenant.liveKey, {
        firstName: 'Livemode',
        lastName: 'Only',
        tags: ['live-only'],
        externalId: 'ext-live',
      });
      await expectInvisible(api, live.id, 'Livemode');
      // and the live key cannot see test patients either
      const test = await createPatient(suite.app, suite.tenant.testKey, { firstName: 'Testmode', lastName: 'Only' });
      expect((await suite.api(suite.tenant.liveKey).get(`${PATIENTS}/${test.id}`)).status).toBe(404);
    });

    it("cannot see another tenant's import job", async () => {
      const other = await createTenant(suite.app);
      const res = await suite
        .api(other.testKey)
        .post<BulkImportAcceptedDto>(`${PATIENTS}/bulk-import`, { patients: [{ firstName: 'A', lastName: 'B' }] });
      expect(res.status).toBe(202);
      await waitForImport(suite.app, other.testKey, res.body.jobId);
      expect((await api.get(`${PATIENTS}/bulk-import/${res.body.jobId}`)).status).toBe(404);
    });
  });
});

/** The foreign patient answers 404 on every route taking its id and appears in no list, search or tag count. */
async function expectInvisible(api: ReturnType<typeof client>, id: string, firstName: string): Promise<void> {
  for (const res of [
    await api.get<Problem>(`${PATIENTS}/${id}`),
    await api.put<Problem>(`${PATIENTS}/${id}`, { gender: 'x' }),
    await api.put<Problem>(`${PATIENTS}/${id}`, { gender: 'x' }, { 'if-match': '*' }),
    await api.get<Problem>(`${PATIENTS}/${id}/clinical`),
    await api.post<Problem>(`${PATIENTS}/${id}/clinical/conditions`, { display: 'x' }),
    await api.post<Problem>(`${PATIENTS}/${id}/clinical/medications`, { name: 'x' }),
    await api.post<Problem>(`${PATIENTS}/${id}/clinical/encounters`, { datetime: `${nextWeekday(1, -7)}T09:00:00Z` }),
  ]) {
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  }
  const list = await api.get<PatientListDto>(`${PATIENTS}?limit=100`);
  expect(list.body.patients.map((p) => p.id)).not.toContain(id);
  expect((await api.get<PatientListDto>(`${PATIENTS}?search=${firstName}`)).body.patients).toEqual([]);
  const tags = (await api.get<TagListDto>(`${PATIENTS}/tags`)).body.tags.map((t) => t.name);
  expect(tags).not.toContain('theirs');
  expect(tags).not.toContain('live-only');
  // their externalId is free here
  expect((await api.get<PatientListDto>(`${PATIENTS}?externalId=ext-iso`)).body.patients).toEqual([]);
}
