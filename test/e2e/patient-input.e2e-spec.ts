import { client, createTenant, type Problem } from '../helpers/app';
import { useApp } from '../helpers/use-app';
import type { PatientDto, PatientListDto } from '../../src/modules/patients/dto/patient.dto';
import type { BulkImportAcceptedDto } from '../../src/modules/patients/dto/bulk-import.dto';

import { NO_RATE_LIMITS, PATIENTS, waitForImport } from '../helpers/patients';

const IMPORT = `${PATIENTS}/bulk-import`;

/** Fields that differ between two patients made from the same input. */
const identityless = ({ id: _id, joiningCode: _code, externalId: _ext, createdAt: _c, updatedAt: _u, ...rest }: PatientDto) => rest;

/**
 * POST, PUT and bulk-import rows go through one normaliser: the same input is stored the same way, and a
 * `null` custom-field value means "no value" everywhere (removes the key from an existing patient, is
 * not stored on a new one); a key that is not a defined custom field is refused, null or not.
 */
describe('Patient input: one normalisation for POST, PUT and bulk rows', () => {
  const suite = useApp(NO_RATE_LIMITS);
  let api: ReturnType<typeof client>;
  let key: string;

  beforeAll(async () => {
    key = (await createTenant(suite.app)).testKey;
    api = suite.api(key);
    await api.post(`${PATIENTS}/custom-fields`, { key: 'plan', label: 'Plan', type: 'select', options: ['basic', 'plus'] });
    await api.post(`${PATIENTS}/custom-fields`, { key: 'insurer', label: 'Insurer', type: 'text' });
  });

  const messy = {
    firstName: '  Ada ',
    lastName: ' Lovelace  ',
    email: 'ada@example.com',
    phone: '+44 20 7946 0000',
    gender: '   ',
    tags: [' vip', 'vip ', 'new'],
    customFields: { plan: 'basic', insurer: null },
  };

  it('stores a POST body and an identical bulk row identically', async () => {
    const posted = await api.post<PatientDto>(PATIENTS, { ...messy, externalId: 'same-post' });
    expect(posted.status).toBe(201);
    expect(posted.body).toMatchObject({
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: 'ada@example.com',
      phone: '+442079460000',
      gender: null,
      tags: ['vip', 'new'],
      customFields: { plan: 'basic' },
    });
    const submitted = await api.post<BulkImportAcceptedDto>(IMPORT, { patients: [{ ...messy, externalId: 'same-bulk' }] });
    expect(await waitForImport(suite.app, key, submitted.body.jobId)).toMatchObject({ created: 1, failed: 0 });
    const imported = (await api.get<PatientListDto>(`${PATIENTS}?externalId=same-bulk`)).body.patients[0];
    expect(identityless(imported)).toEqual(identityless(posted.body));
  });

  it('refuses a null value for a key that is not a defined custom field, on POST, PUT and in a bulk row', async () => {
    const body = { firstName: 'Un', lastName: 'Known', customFields: { nope: null } };
    const posted = await api.post<Problem>(PATIENTS, body);
    expect(posted.status).toBe(400);
    expect(posted.body.errors).toEqual([{ field: 'customFields.nope', message: 'is not a defined custom field' }]);
    const created = await api.post<PatientDto>(PATIENTS, { firstName: 'Un', lastName: 'Known' });
    const put = await api.put<Problem>(`${PATIENTS}/${created.body.id}`, { customFields: { nope: null } });
    expect(put.status).toBe(400);
    expect(put.body.errors).toEqual([{ field: 'customFields.nope', message: 'is not a defined custom field' }]);
    const dry = await api.post(`${IMPORT}?dryRun=true`, { patients: [body] });
    expect(dry.body).toMatchObject({
      failed: 1,
      errors: [{ index: 0, field: 'customFields.nope', message: 'is not a defined custom field' }],
    });
  });

  it('a null custom-field value removes the key on PUT and in a bulk row that updates, and is not stored on create', async () => {
    const created = await api.post<PatientDto>(PATIENTS, {
      firstName: 'Null',
      lastName: 'Rule',
      externalId: 'null-rule',
      customFields: { plan: 'plus', insurer: 'AXA' },
    });
    expect(created.body.customFields).toEqual({ plan: 'plus', insurer: 'AXA' });

    const put = await api.put<PatientDto>(`${PATIENTS}/${created.body.id}`, { customFields: { insurer: null } });
    expect(put.status).toBe(200);
    expect(put.body.customFields).toEqual({ plan: 'plus' });

    const rows = [
      // updates the patient above: insurer set again, then plan removed by a null
      { firstName: 'Null', lastName: 'Rule', externalId: 'null-rule', customFields: { plan: null, insurer: 'Bupa' } },
      // creates: the null is not stored
      { firstName: 'New', lastName: 'Row', externalId: 'null-new', customFields: { plan: null, insurer: 'AXA' } },
    ];
    const dry = await api.post(`${IMPORT}?dryRun=true`, { patients: rows });
    expect(dry.body).toMatchObject({ failed: 0, errors: [] });
    const job = await waitForImport(suite.app, key, (await api.post<BulkImportAcceptedDto>(IMPORT, { patients: rows })).body.jobId);
    expect(job).toMatchObject({ created: 1, updated: 1, failed: 0 });
    expect((await api.get<PatientDto>(`${PATIENTS}/${created.body.id}`)).body.customFields).toEqual({ insurer: 'Bupa' });
    expect((await api.get<PatientListDto>(`${PATIENTS}?externalId=null-new`)).body.patients[0].customFields).toEqual({ insurer: 'AXA' });

    // customFields: null removes every key, as on PUT
    const cleared = await waitForImport(
      suite.app,
      key,
      (
        await api.post<BulkImportAcceptedDto>(IMPORT, {
          patients: [{ firstName: 'Null', lastName: 'Rule', externalId: 'null-rule', customFields: null }],
        })
      ).body.jobId,
    );
    expect(cleared).toMatchObject({ updated: 1, failed: 0 });
    expect((await api.get<PatientDto>(`${PATIENTS}/${created.body.id}`)).body.customFields).toEqual({});
  });
});
