/**
 * The request examples of a template preview (email and SMS): sample values first, so that "Try it out" is
 * not pre-filled with a patientId that names nothing; then the same for a patient.
 */
export function previewExamples(appointmentDate: string): Record<string, { summary: string; value: Record<string, unknown> }> {
  return {
    sample: {
      summary: 'With sample values',
      value: { variables: { patient: { firstName: 'Ada', lastName: 'Lovelace' }, appointmentDate } },
    },
    patient: { summary: 'For a patient', value: { patientId: '0193a5a8-7f3e-7c1a-9d52-3f0c8e1b2a40', variables: { appointmentDate } } },
  };
}
