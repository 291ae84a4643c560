import { buildTemplateContext, TemplateAppointment } from './template-context';

describe('buildTemplateContext', () => {
  const appointment: TemplateAppointment = {
    datetime: '…',
    localDate: 'the date',
    localTime: '09:30',
    timezone: 'America/New_York',
    durationMinutes: 30,
    providerName: 'Dr. Ada',
    typeName: 'Check-up',
    manageUrl: 'https://clinic.example/manage',
  };

  it("gives a reminder's appointment as `appointment`, over a caller's variable of that name", () => {
    const context = buildTemplateContext({ appointment, variables: { appointment: { localTime: 'forged' }, extra: 1 } });
    expect(context.appointment).toEqual(appointment);
    expect(context.extra).toBe(1);
  });

  it("leaves a caller's `appointment` variable alone without one (a preview's sample)", () => {
    expect(buildTemplateContext({ variables: { appointment: { localTime: '10:00' } } }).appointment).toEqual({ localTime: '10:00' });
    expect(buildTemplateContext({}).appointment).toBeUndefined();
  });
});
