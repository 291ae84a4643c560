import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { client, type Json } from './app';
import type { FormDto } from '../../src/modules/forms/dto/form.dto';

export const FORMS = '/api/v1/forms';

/** One field of every type, all optional; `required` ones are added by the tests that need them. */
export const EVERY_TYPE = [
  { id: 'name', label: 'Full name', type: 'text', maxLength: 20 },
  { id: 'notes', label: 'Notes', type: 'textarea' },
  { id: 'email', label: 'Email', type: 'email' },
  { id: 'phone', label: 'Phone', type: 'phone' },
  { id: 'pain', label: 'Pain level', type: 'number', min: 0, max: 10 },
  { id: 'visit_date', label: 'Preferred date', type: 'date' },
  { id: 'reason', label: 'Reason', type: 'select', options: ['Check-up', 'Back pain', 'Other'] },
  { id: 'symptoms', label: 'Symptoms', type: 'multiselect', options: ['cough', 'fever', 'headache'] },
  { id: 'consent', label: 'Marketing consent', type: 'checkbox' },
];

let counter = 0;

/** Creates a form through the API and answers its body; fails the test on anything but 201. */
export async function createForm(app: NestFastifyApplication, key: string, body: Record<string, unknown> = {}): Promise<FormDto> {
  const res = await client(app, key).post<FormDto>(FORMS, { name: `Form ${++counter}`, fields: EVERY_TYPE, ...body });
  if (res.status !== 201) throw new Error(`form creation failed: ${res.status} ${res.text}`);
  return res.body;
}

/** Submits answers and answers the response (any status). */
export function submit<T = Json>(
  app: NestFastifyApplication,
  key: string,
  formId: string,
  fields: Record<string, unknown>,
  extra: object = {},
) {
  return client(app, key).post<T>(`${FORMS}/${formId}/submit`, { fields, ...extra });
}
