import type { AuthContext } from '../common/auth/auth.types';
import type { CreateFormDto } from '../modules/forms/dto/create-form.dto';
import { FormSubmissionsService } from '../modules/forms/form-submissions.service';
import { FormsService } from '../modules/forms/forms.service';

/** The demo intake form: one field of every type. */
export const DEMO_INTAKE_FORM: CreateFormDto = {
  name: 'New patient intake',
  slug: 'new-patient-intake',
  description: 'Completed by every new patient before the first appointment.',
  fields: [
    { id: 'full_name', label: 'Full name', type: 'text', required: true, maxLength: 200 },
    { id: 'email', label: 'Email', type: 'email', required: true, placeholder: 'you@example.com' },
    { id: 'phone', label: 'Mobile phone', type: 'phone', helpText: 'International format, e.g. +44 7700 900123' },
    // Optional, as in the API's submit example, which then fits this form too.
    { id: 'date_of_birth', label: 'Date of birth', type: 'date' },
    {
      id: 'reason',
      label: 'Reason for your visit',
      type: 'select',
      required: true,
      options: ['Check-up', 'Back pain', 'Sports injury', 'Other'],
    },
    { id: 'symptoms', label: 'Current symptoms', type: 'multiselect', options: ['Pain', 'Stiffness', 'Swelling', 'Numbness', 'None'] },
    { id: 'pain_level', label: 'Pain level (0–10)', type: 'number', min: 0, max: 10 },
    { id: 'history', label: 'Relevant medical history', type: 'textarea', maxLength: 5000 },
    { id: 'consent', label: 'I agree to the privacy notice', type: 'checkbox', required: true },
  ],
};

export interface DemoPatient {
  id: string;
  firstName: string;
  lastName: string;
  email: string | null;
  phone: string | null;
  dateOfBirth: string | null;
}

const REASONS = ['Check-up', 'Back pain', 'Sports injury', 'Other'];
const SYMPTOMS = ['Pain', 'Stiffness', 'Swelling', 'Numbness'];

/**
 * The intake form and one submission from each given patient. Safe to run twice: the form is found by its
 * slug, and submissions are only added while it has none.
 */
export async function seedDemoForms(
  auth: AuthContext,
  forms: FormsService,
  submissions: FormSubmissionsService,
  patients: DemoPatient[],
): Promise<{ forms: number; submissions: number }> {
  const found = await forms.findBySlug(auth, DEMO_INTAKE_FORM.slug!);
  const form = found ?? (await forms.create(auth, DEMO_INTAKE_FORM));
  const created = found ? 0 : 1;
  if (form.submissionsCount > 0) return { forms: created, submissions: 0 };
  let added = 0;
  for (const [i, p] of patients.entries()) {
    const fields: Record<string, unknown> = {
      full_name: `${p.firstName} ${p.lastName}`,
      email: p.email ?? `${p.firstName}.${p.lastName}@example.com`.toLowerCase(),
      date_of_birth: p.dateOfBirth ?? '1980-01-01',
      reason: REASONS[i % REASONS.length],
      symptoms: SYMPTOMS.slice(0, 1 + (i % SYMPTOMS.length)),
      pain_level: (i * 3) % 11,
      consent: true,
    };
    if (p.phone) fields.phone = p.phone;
    if (i % 2 === 0) fields.history = 'Mild lower back pain since a fall last winter; no medication.';
    await submissions.submit(auth, form.id, { fields, patientId: p.id });
    added++;
  }
  return { forms: created, submissions: added };
}
