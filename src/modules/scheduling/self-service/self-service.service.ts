import { Injectable } from '@nestjs/common';
import { ResourceNotFoundProblem } from '../../../common/http/errors/problem';
import { BusinessClock } from '../../../common/time/business-clock';
import { SettingsService, type PageLook } from '../../settings';
import { changeDeadline } from '../appointments/appointment-policies';
import { appointmentCalendar } from '../appointments/appointment-calendar';
import { AppointmentsService } from '../appointments/appointments.service';
import { AvailabilityService } from '../availability/availability.service';
import { parseRange } from '../availability/date-range';
import { AppointmentDto } from '../appointments/dto/appointment.dto';
import {
  PublicAppointmentDto,
  PublicManageAvailabilityDto,
  PublicManageAvailabilityQueryDto,
  PublicRescheduleDto,
} from './dto/public-appointment.dto';
import { AppointmentTypeEntity } from '../appointment-types/entities/appointment-type.entity';
import { ProviderEntity } from '../providers/entities/provider.entity';
import { ManagedAppointment, ManageTokens } from './manage-tokens';
import { publicSlots } from '../availability/public-slots';
import { AppointmentNotFoundException, SlotUnavailableException } from '../scheduling.exceptions';
import { isActive } from '../appointments/transitions';

/** The appointment a link names, as the public routes need it. */
export interface Managed {
  subject: ManagedAppointment;
  appointment: AppointmentDto;
  provider: ProviderEntity;
  type: AppointmentTypeEntity | null;
}

/**
 * What a patient may do with an appointment's manage link and no key: see it, confirm, cancel, see the
 * provider's free times and reschedule. Changes go through AppointmentsService.change with source
 * `patient_link` (transitions, locks, the exclusion constraint, events), in the appointment's tenant and mode.
 */
@Injectable()
export class SelfServiceService {
  constructor(
    private readonly tokens: ManageTokens,
    private readonly appointments: AppointmentsService,
    private readonly availability: AvailabilityService,
    private readonly settings: SettingsService,
    private readonly clock: BusinessClock,
  ) {}

  /**
   * The appointment a link's token names, for every public route: 404 for an unknown, altered or forged token
   * (as for an unknown appointment). Tenant and mode are the appointment's own, never the request's.
   */
  async require(token: string): Promise<Managed> {
    const subject = await this.tokens.resolve(token);
    if (!subject) throw new ResourceNotFoundProblem('The appointment link');
    try {
      return { subject, ...(await this.appointments.getWithProvider(subject, subject.appointmentId)) };
    } catch (err) {
      if (err instanceof AppointmentNotFoundException) throw new ResourceNotFoundProblem('The appointment link');
      throw err;
    }
  }

  async view(managed: Managed): Promise<PublicAppointmentDto> {
    const { appointment, provider, type, subject } = managed;
    const deadline = changeDeadline(Date.parse(appointment.datetime), type?.cancellationWindowMinutes ?? null);
    const changeable = isActive(appointment.status) && (await this.clock.nowMs(subject)) <= deadline;
    return {
      id: appointment.id,
      status: appointment.status,
      datetime: appointment.datetime,
      end: appointment.end,
      durationMinutes: appointment.duration,
      timezone: provider.timezone,
      providerName: provider.name,
      appointmentTypeName: type?.name ?? appointment.type,
      practiceName: await this.settings.practiceName(subject),
      canConfirm: appointment.status === 'scheduled',
      canCancel: changeable,
      canReschedule: changeable,
      changeDeadline: new Date(deadline).toISOString(),
    };
  }

  async confirm(managed: Managed): Promise<PublicAppointmentDto> {
    return this.after(
      managed,
      await this.appointments.change(managed.subject, managed.appointment.id, { status: 'confirmed' }, 'patient_link'),
    );
  }

  async cancel(managed: Managed): Promise<PublicAppointmentDto> {
    return this.after(
      managed,
      await this.appointments.change(managed.subject, managed.appointment.id, { status: 'cancelled' }, 'patient_link'),
    );
  }

  /** A reschedule: checked like a booking under the appointment's policy (409 slot_unavailable with public alternatives). */
  async reschedule(managed: Managed, dto: PublicRescheduleDto): Promise<PublicAppointmentDto> {
    const moved = await this.appointments
      .change(managed.subject, managed.appointment.id, { datetime: dto.datetime }, 'patient_link')
      .catch((err: unknown) => {
        throw err instanceof SlotUnavailableException ? err.keyless() : err;
      });
    return this.after(managed, moved);
  }

  /** The same provider's free slots for the same type (or length), its own current time counted free. */
  async slots(managed: Managed, query: PublicManageAvailabilityQueryDto): Promise<PublicManageAvailabilityDto> {
    const range = parseRange(query.startDate, query.endDate);
    const { appointment, provider, subject } = managed;
    const policy = await this.appointments.policyOf(subject, appointment, appointment.duration);
    const slots = await this.availability.slotsFor(subject, [provider], range, policy, appointment.id);
    return { slots: publicSlots(slots) };
  }

  /** The appointment's iCalendar file, as the keyed route answers it, under the practice's name. */
  async calendar(managed: Managed): Promise<string> {
    return appointmentCalendar(managed.appointment, managed.provider, await this.settings.practiceName(managed.subject));
  }

  /** How the manage page shows the practice (its name, logo and colour). */
  pageLook(managed: Managed): Promise<PageLook> {
    return this.settings.pageLook(managed.subject);
  }

  /** `slots` from now, by the appointment's clock, for `days` days. */
  async slotsFromNow(managed: Managed, days: number): Promise<PublicManageAvailabilityDto> {
    const now = await this.clock.nowMs(managed.subject);
    return this.slots(managed, { startDate: new Date(now).toISOString(), endDate: new Date(now + days * 86_400_000).toISOString() });
  }

  private after(managed: Managed, appointment: AppointmentDto): Promise<PublicAppointmentDto> {
    return this.view({ ...managed, appointment });
  }
}
