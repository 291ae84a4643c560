import { DEMO_SCHEDULER_SLUG, seedDemoScheduling } from '../../src/cli/demo-scheduling';
import type { AuthContext } from '../../src/common/auth/auth.types';
import { BookingPagesService } from '../../src/modules/booking-pages/booking-pages.service';
import { AppointmentTypesService } from '../../src/modules/scheduling/appointment-types/appointment-types.service';
import { AppointmentsService } from '../../src/modules/scheduling/appointments/appointments.service';
import { AvailabilityService } from '../../src/modules/scheduling/availability/availability.service';
import { ProvidersService } from '../../src/modules/scheduling/providers/providers.service';
import { call, createTenant } from '../helpers/app';
import type { PublicSchedulerDto } from '../../src/modules/booking-pages/dto/public-scheduler.dto';
import type { SchedulerListDto } from '../../src/modules/booking-pages/dto/scheduler.dto';
import type { EmailTemplateDto } from '../../src/modules/email/dto/email-template.dto';
import type { AppointmentListDto } from '../../src/modules/scheduling/appointments/dto/appointment.dto';
import type { AppointmentTypeListDto } from '../../src/modules/scheduling/appointment-types/dto/appointment-type.dto';
import type { ProviderListDto } from '../../src/modules/scheduling/providers/dto/provider.dto';
import type { TimeOffListDto } from '../../src/modules/scheduling/providers/dto/time-off.dto';
import { useApp } from '../helpers/use-app';
import { createPatient, NO_RATE_LIMITS } from '../helpers/patients';
import { SCHEDULERS, SCHEDULING } from '../helpers/scheduling';

describe('seed:demo scheduling', () => {
  const suite = useApp({ ...NO_RATE_LIMITS, WORKERS: 'off' });

  it('adds providers in New York and London, time off, appointments in every status and an active scheduler, once', async () => {
    const tenant = await createTenant(suite.app);
    const auth = { tenantId: tenant.id, mode: 'test', role: 'OWNER', scopes: null } as AuthContext;
    const patients = [await createPatient(suite.app, tenant.testKey), await createPatient(suite.app, tenant.testKey)];
    const services = {
      providers: suite.app.get(ProvidersService),
      types: suite.app.get(AppointmentTypesService),
      availability: suite.app.get(AvailabilityService),
      appointments: suite.app.get(AppointmentsService),
      schedulers: suite.app.get(BookingPagesService),
    };
    const template = await suite
      .api(tenant.testKey)
      .post<EmailTemplateDto>('/api/v1/emails/templates', { name: 'R', subject: 'Soon', textContent: 'x' });
    const reminders = [{ offsetMinutes: 1440, channel: 'email' as const, templateId: template.body.id }];
    const seed = () =>
      seedDemoScheduling(
        auth,
        services,
        patients.map((p) => p.id),
        reminders,
      );
    const all = { scheduled: 2, confirmed: 2, completed: 2, cancelled: 2, no_show: 2 };
    expect(await seed()).toEqual({ providers: 2, appointmentTypes: 2, timeOff: 2, appointments: all, schedulers: 1 });
    expect(await seed()).toEqual({ providers: 0, appointmentTypes: 0, timeOff: 0, appointments: {}, schedulers: 0 });

    const api = suite.api(tenant.testKey);
    const providers = (await api.get<ProviderListDto>(`${SCHEDULING}/providers`)).body.providers;
    expect(providers.map((p) => p.timezone).sort()).toEqual(['America/New_York', 'Europe/London']);
    for (const p of providers)
      expect((await api.get<TimeOffListDto>(`${SCHEDULING}/providers/${p.id}/time-off`)).body.timeOff).toHaveLength(1);
    const appointments = (await api.get<AppointmentListDto>(`${SCHEDULING}/appointments?limit=100`)).body.appointments;
    const types = (await api.get<AppointmentTypeListDto>(`${SCHEDULING}/appointment-types`)).body.appointmentTypes;
    expect(types.map((t) => [t.name, t.durationMinutes, t.bufferAfterMinutes, t.minimumNoticeMinutes]).sort()).toEqual([
      ['Follow-up', 20, 0, 0],
      ['New patient', 60, 15, 240],
    ]);
    const typeNames = new Map<string | null, string>(types.map((t) => [t.id, t.name]));
    expect(appointments.every((a) => typeNames.get(a.appointmentTypeId) === a.type)).toBe(true);
    const statuses: Record<string, number> = {};
    for (const a of appointments) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
    expect(statuses).toEqual(all);
    // Each type reminds; each appointment has its reminder, still to go only while it is scheduled or confirmed.
    expect(types.map((t) => t.reminders)).toEqual([reminders, reminders]);
    for (const a of appointments) {
      expect(a.reminders).toHaveLength(1);
      if (!['scheduled', 'confirmed'].includes(a.status)) expect(a.reminders[0].status).not.toBe('scheduled');
    }
    const [scheduler] = (await api.get<SchedulerListDto>(SCHEDULERS)).body.schedulers;
    expect(scheduler).toMatchObject({ slug: DEMO_SCHEDULER_SLUG, isActive: true });
    expect(scheduler.providerIds.sort()).toEqual(providers.map((p) => p.id).sort());
    expect(scheduler.appointmentTypeId).toBe(types.find((t) => t.name === 'New patient')!.id);
    expect((await call<PublicSchedulerDto>(suite.app, 'GET', `/api/v1/public/schedulers/${scheduler.id}`)).body).toMatchObject({
      duration: 60,
      type: 'New patient',
    });
  });
});
