import { DEMO_INTAKE_FORM, seedDemoForms } from '../../src/cli/demo-forms';
import type { AuthContext } from '../../src/common/auth/auth.types';
import { FIELD_TYPES } from '../../src/modules/forms/form-rules';
import { FormSubmissionsService } from '../../src/modules/forms/form-submissions.service';
import { FormsService } from '../../src/modules/forms/forms.service';
import { createTenant } from '../helpers/app';
import { useApp } from '../helpers/use-app';
import { FORMS } from '../helpers/forms';
import { createPatient, NO_RATE_LIMITS } from '../helpers/patients';

describe('seed:demo forms', () => {
  const suite = useApp(NO_RATE_LIMITS);

  it('adds an intake form using every field type and one valid submission per patient, once', async () => {
    const tenant = await createTenant(suite.app);
    const auth = { tenantId: tenant.id, mode: 'test', role: 'OWNER', scopes: null } as AuthContext;
    const patients = [
      await createPatient(suite.app, tenant.testKey, { email: 'ada@example.com', phone: '+442079460001', dateOfBirth: '1985-12-10' }),
      await createPatient(suite.app, tenant.testKey, { email: 'alan@example.com' }),
      await createPatient(suite.app, tenant.testKey),
    ];
    const seed = () => seedDemoForms(auth, suite.app.get(FormsService), suite.app.get(FormSubmissionsService), patients);
    expect(await seed()).toEqual({ forms: 1, submissions: 3 });
    expect(await seed()).toEqual({ forms: 0, submissions: 0 });

    const api = suite.api(tenant.testKey);
    const [form] = (await api.get<{ forms: { id: string; fields: { type: string }[] }[] }>(FORMS)).body.forms;
    expect(form).toMatchObject({ slug: DEMO_INTAKE_FORM.slug, submissionsCount: 3 });
    expect(new Set(form.fields.map((f) => f.type))).toEqual(new Set(FIELD_TYPES));
    const listed = (await api.get<{ submissions: { patientId: string }[] }>(`${FORMS}/${form.id}/submissions`)).body.submissions;
    expect(listed.map((s) => s.patientId).sort()).toEqual(patients.map((p) => p.id).sort());
  });
});
