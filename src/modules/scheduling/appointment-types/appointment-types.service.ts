import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AuthContext } from '../../../common/auth/auth.types';
import { PageRequest } from '../../../common/http/lists/pagination';
import { FieldError, ValidationFailedException } from '../../../common/http/errors/problem';
import { clock } from '../../../common/time/clock';
import { ReadReplicas } from '../../../database/read-replicas';
import { TenantScope } from '../../../database/tenant-owned.entity';
import { EmailTemplatesService } from '../../email';
import { SmsTemplatesService } from '../../sms';
import { defaultSlotInterval } from '../appointments/appointment-policies';
import { AppointmentTypesRepository } from './appointment-types.repository';
import { definedOnly } from '../defined-only';
import {
  AppointmentTypeDto,
  AppointmentTypeListDto,
  CreateAppointmentTypeDto,
  NoticeTemplatesInputDto,
  ReminderRuleDto,
  UpdateAppointmentTypeDto,
} from './dto/appointment-type.dto';
import { AppointmentTypeEntity, NOTICE_EVENTS, NoticeTemplates, ReminderRule } from './entities/appointment-type.entity';
import { ProvidersService } from '../providers/providers.service';
import { AppointmentTypeNotFoundException } from '../scheduling.exceptions';

/** Appointment types and their booking policies, as the tenant's keys manage them. */
@Injectable()
export class AppointmentTypesService {
  constructor(
    private readonly types: AppointmentTypesRepository,
    private readonly providers: ProvidersService,
    private readonly emailTemplates: EmailTemplatesService,
    private readonly smsTemplates: SmsTemplatesService,
    private readonly replicas: ReadReplicas,
  ) {}

  async create(auth: AuthContext, dto: CreateAppointmentTypeDto): Promise<AppointmentTypeDto> {
    const providerIds = (dto.providerIds ?? []).map((id) => id.toLowerCase());
    const reminders = (dto.reminders ?? []).map(reminderOf);
    const noticeTemplates = noticeTemplatesOf({}, dto.noticeTemplates);
    await this.check(auth, providerIds, reminders, noticeTemplates);
    const row = await this.types.insert(auth, {
      name: dto.name.trim(),
      durationMinutes: dto.durationMinutes,
      bufferBeforeMinutes: dto.bufferBeforeMinutes ?? 0,
      bufferAfterMinutes: dto.bufferAfterMinutes ?? 0,
      minimumNoticeMinutes: dto.minimumNoticeMinutes ?? 0,
      bookingHorizonDays: dto.bookingHorizonDays ?? 365,
      slotIntervalMinutes: dto.slotIntervalMinutes ?? defaultSlotInterval(dto.durationMinutes),
      maxPerDayPerProvider: dto.maxPerDayPerProvider ?? null,
      cancellationWindowMinutes: dto.cancellationWindowMinutes ?? 1440,
      waitlistOfferMinutes: dto.waitlistOfferMinutes ?? 60,
      providerIds,
      reminders,
      isActive: dto.isActive ?? true,
      noticeBooked: dto.notices?.booked ?? true,
      noticeRescheduled: dto.notices?.rescheduled ?? true,
      noticeCancelled: dto.notices?.cancelled ?? true,
      noticeChannels: dto.noticeChannels ?? ['email'],
      noticeTemplates,
    });
    return appointmentTypeDto(row);
  }

  async list(auth: AuthContext, page: PageRequest): Promise<AppointmentTypeListDto> {
    const result = await this.replicas.read((db) => this.types.list(auth, page, db));
    return { appointmentTypes: result.items.map(appointmentTypeDto), nextCursor: result.nextCursor };
  }

  async get(auth: AuthContext, id: string): Promise<AppointmentTypeDto> {
    return appointmentTypeDto(await this.require(auth, id));
  }

  /** The type, or 404 (a path id). */
  async require(scope: TenantScope, id: string): Promise<AppointmentTypeEntity> {
    const row = await this.types.get(scope, id);
    if (!row) throw new AppointmentTypeNotFoundException();
    return row;
  }

  /** The type a body names, or null (read in `tx` when given). */
  find(scope: TenantScope, id: string, tx?: EntityManager): Promise<AppointmentTypeEntity | null> {
    return this.types.get(scope, id, tx);
  }

  /** The type a body's `field` names, active, or 400 naming the field. */
  async named(scope: TenantScope, id: string, field = 'appointmentTypeId'): Promise<AppointmentTypeEntity> {
    const row = await this.types.get(scope, id);
    if (!row) throw new ValidationFailedException([{ field, message: 'names no appointment type of this tenant and mode' }]);
    if (!row.isActive) throw new ValidationFailedException([{ field, message: 'names an inactive appointment type' }]);
    return row;
  }

  /**
   * PATCH: a new duration without a slot interval keeps the stored interval (it was chosen or defaulted
   * once, when the type was created). `notices` and `noticeTemplates` merge into the stored ones.
   */
  async update(auth: AuthContext, id: string, dto: UpdateAppointmentTypeDto): Promise<AppointmentTypeDto> {
    const providerIds = dto.providerIds?.map((p) => p.toLowerCase());
    const reminders = dto.reminders?.map(reminderOf);
    // Merged into the stored ones, so read first: a concurrent PATCH of the same member may win, as any PATCH.
    const current = dto.noticeTemplates ? await this.require(auth, id) : null;
    const noticeTemplates = current ? noticeTemplatesOf(current.noticeTemplates, dto.noticeTemplates) : undefined;
    await this.check(auth, providerIds ?? [], reminders ?? [], noticeTemplates ?? {});
    const changed = await this.types.update(
      auth,
      { id },
      definedOnly({
        name: dto.name?.trim(),
        durationMinutes: dto.durationMinutes,
        bufferBeforeMinutes: dto.bufferBeforeMinutes,
        bufferAfterMinutes: dto.bufferAfterMinutes,
        minimumNoticeMinutes: dto.minimumNoticeMinutes,
        bookingHorizonDays: dto.bookingHorizonDays,
        slotIntervalMinutes: dto.slotIntervalMinutes,
        maxPerDayPerProvider: dto.maxPerDayPerProvider,
        cancellationWindowMinutes: dto.cancellationWindowMinutes,
        waitlistOfferMinutes: dto.waitlistOfferMinutes,
        providerIds,
        reminders,
        isActive: dto.isActive,
        noticeBooked: dto.notices?.booked,
        noticeRescheduled: dto.notices?.rescheduled,
        noticeCancelled: dto.notices?.cancelled,
        noticeChannels: dto.noticeChannels,
        noticeTemplates,
        updatedAt: clock.now(),
      }),
    );
    if (!changed) throw new AppointmentTypeNotFoundException();
    return this.get(auth, id);
  }

  /**
   * Providers, reminder templates and notice templates must be the caller's: 400 naming `providerIds.<i>`,
   * `reminders.<i>.templateId` or `noticeTemplates.<change>`; and no reminder may repeat an earlier one's
   * offset and channel (`reminders.<i>`).
   */
  private async check(scope: TenantScope, providerIds: string[], reminders: ReminderRule[], notices: NoticeTemplates): Promise<void> {
    const errors: FieldError[] = [...(await this.providers.unknownIds(scope, providerIds)), ...repeatedReminders(reminders)];
    const ids = (channel: string): string[] => reminders.filter((r) => r.channel === channel).map((r) => r.templateId);
    const [email, sms] = await Promise.all([
      this.emailTemplates.existing(scope, [...ids('email'), ...Object.values(notices)]),
      this.smsTemplates.existing(scope, ids('sms')),
    ]);
    for (const event of NOTICE_EVENTS) {
      const templateId = notices[event];
      if (templateId && !email.has(templateId)) {
        errors.push({ field: `noticeTemplates.${event}`, message: 'names no email template of this tenant and mode' });
      }
    }
    reminders.forEach((r, i) => {
      if (!(r.channel === 'email' ? email : sms).has(r.templateId)) {
        errors.push({
          field: `reminders.${i}.templateId`,
          message: `names no ${r.channel === 'email' ? 'email' : 'SMS'} template of this tenant and mode`,
        });
      }
    });
    if (errors.length) throw new ValidationFailedException(errors);
  }
}

/**
 * A reminder at the offset and channel of an earlier one, whatever its template: it would send a second
 * message by the same channel at the same moment, which a patient never needs.
 */
function repeatedReminders(reminders: ReminderRule[]): FieldError[] {
  const first = new Map<string, number>();
  const errors: FieldError[] = [];
  reminders.forEach((r, i) => {
    const key = `${r.channel}:${r.offsetMinutes}`;
    const earlier = first.get(key);
    if (earlier === undefined) first.set(key, i);
    else errors.push({ field: `reminders.${i}`, message: `repeats reminders.${earlier}: two reminders of one channel at one offset` });
  });
  return errors;
}

/** Templates as stored (lower-cased ids, no nulls): `changes` merged into `stored`, null removing one. */
function noticeTemplatesOf(stored: NoticeTemplates, changes: NoticeTemplatesInputDto | undefined): NoticeTemplates {
  const merged: NoticeTemplates = { ...stored };
  for (const event of NOTICE_EVENTS) {
    const value = changes?.[event];
    if (value === null) delete merged[event];
    else if (value !== undefined) merged[event] = value.toLowerCase();
  }
  return merged;
}

function reminderOf(r: ReminderRuleDto): ReminderRule {
  return { offsetMinutes: r.offsetMinutes, channel: r.channel, templateId: r.templateId.toLowerCase() };
}

export function appointmentTypeDto(row: AppointmentTypeEntity): AppointmentTypeDto {
  return {
    id: row.id,
    name: row.name,
    durationMinutes: row.durationMinutes,
    bufferBeforeMinutes: row.bufferBeforeMinutes,
    bufferAfterMinutes: row.bufferAfterMinutes,
    minimumNoticeMinutes: row.minimumNoticeMinutes,
    bookingHorizonDays: row.bookingHorizonDays,
    slotIntervalMinutes: row.slotIntervalMinutes,
    maxPerDayPerProvider: row.maxPerDayPerProvider,
    cancellationWindowMinutes: row.cancellationWindowMinutes,
    waitlistOfferMinutes: row.waitlistOfferMinutes,
    providerIds: row.providerIds,
    reminders: row.reminders.map((r) => ({ offsetMinutes: r.offsetMinutes, channel: r.channel, templateId: r.templateId })),
    notices: { booked: row.noticeBooked, rescheduled: row.noticeRescheduled, cancelled: row.noticeCancelled },
    noticeChannels: row.noticeChannels,
    noticeTemplates: {
      booked: row.noticeTemplates.booked ?? null,
      rescheduled: row.noticeTemplates.rescheduled ?? null,
      cancelled: row.noticeTemplates.cancelled ?? null,
    },
    isActive: row.isActive,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
