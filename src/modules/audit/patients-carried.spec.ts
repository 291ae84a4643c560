import { patientsCarried } from './patients-carried';

const A = '0193a5b2-7c1d-7e4f-8a9b-00000000000a';
const B = '0193a5b2-7c1d-7e4f-8a9b-00000000000b';
const C = '0193a5b2-7c1d-7e4f-8a9b-00000000000c';
const patient = (id: string) => ({ id, joiningCode: 'K7Q2', firstName: 'Ada', customFields: { patientId: C } });

describe('patientsCarried', () => {
  it('finds patients by their shape and references by patientId, at any depth, each once', () => {
    expect(patientsCarried(patient(A), 100)).toEqual(new Set([A]));
    expect(patientsCarried({ patients: [patient(A), patient(B), patient(A)], nextCursor: null }, 100)).toEqual(new Set([A, B]));
    const appointment = { id: C, patientId: A, patient: patient(A) };
    expect(patientsCarried({ appointments: [appointment] }, 100)).toEqual(new Set([A]));
    const events = { events: [{ id: C, type: 'form_submission.created', data: { id: C, patientId: B } }] };
    expect(patientsCarried(events, 100)).toEqual(new Set([B]));
  });

  it('finds the summary a key without patients:read sees in an appointment or an event', () => {
    const summary = { id: A, firstName: 'Ada', lastName: 'Lovelace', email: null, phone: null };
    expect(patientsCarried({ events: [{ id: C, type: 'patient.created', data: summary }] }, 100)).toEqual(new Set([A]));
    expect(patientsCarried({ fields: { firstName: 'x', lastName: 'y', id: B } }, 100)).toEqual(new Set());
  });

  it('does not look into a patient (its custom fields are its own), and takes only UUIDs', () => {
    expect(patientsCarried(patient(A), 100).has(C)).toBe(false);
    expect(patientsCarried({ patientId: 'not-a-uuid', other: { patientId: 42 }, id: A, name: 'x' }, 100)).toEqual(new Set());
    expect(patientsCarried({ id: 'p1', joiningCode: 'X' }, 100)).toEqual(new Set());
    expect(patientsCarried(null, 100)).toEqual(new Set());
    expect(patientsCarried('text', 100)).toEqual(new Set());
  });

  it('stops at the bound', () => {
    const many = Array.from({ length: 50 }, (_, i) => ({ patientId: `0193a5b2-7c1d-7e4f-8a9b-${String(i).padStart(12, '0')}` }));
    expect(patientsCarried(many, 10).size).toBe(10);
  });
});
