import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { clock } from '../../../common/time/clock';
import { TenantScope } from '../../../database/tenant-owned.entity';
import { TenantEntityRepository, Unscoped } from '../../../database/tenant-scoped.repository';
import { AppointmentReminderEntity, ReminderStatus } from './entities/appointment-reminder.entity';

@Injectable()
export class RemindersRepository extends TenantEntityRepository<AppointmentReminderEntity> {
  constructor(@InjectRepository(AppointmentReminderEntity) repository: Repository<AppointmentReminderEntity>) {
    super(repository);
  }

  /** Writes the rows of one plan with one statement. */
  async insertMany(
    scope: TenantScope,
    values: Unscoped<AppointmentReminderEntity>[],
    tx: EntityManager,
  ): Promise<AppointmentReminderEntity[]> {
    if (!values.length) return [];
    const now = clock.now();
    const rows = values.map((v) => this.build(scope, v, now));
    await this.repo(tx).insert(rows);
    return rows;
  }

  /** The reminders of these appointments, each appointment's in the order they go out. */
  forAppointments(scope: TenantScope, appointmentIds: string[], tx?: EntityManager): Promise<AppointmentReminderEntity[]> {
    if (!appointmentIds.length) return Promise.resolve([]);
    return this.sql<AppointmentReminderEntity[]>(
      scope,
      `SELECT ${this.columns} FROM appointment_reminders
        WHERE tenant_id = $1 AND mode = $2 AND appointment_id = ANY($3::uuid[]) ORDER BY send_at, id`,
      [appointmentIds],
      tx,
    );
  }

  /** Cancels the appointment's reminders still to go, with `reason`; answers which they were. */
  async cancelScheduled(
    scope: TenantScope,
    appointmentId: string,
    reason: string,
    tx: EntityManager,
  ): Promise<{ id: string; sendAt: Date }[]> {
    const [rows] = await this.sql<[{ id: string; sendAt: Date }[], number]>(
      scope,
      `UPDATE appointment_reminders SET status = 'cancelled', reason = $4, updated_at = $5
        WHERE tenant_id = $1 AND mode = $2 AND appointment_id = $3 AND status = 'scheduled'
        RETURNING id, send_at AS "sendAt"`,
      [appointmentId, reason, clock.now()],
      tx,
    );
    return rows;
  }

  /**
   * Takes a scheduled reminder for sending until `tx` ends (its row lock). A second run of its job waits
   * for the first's transaction and then finds it settled (null), or scheduled still if that one rolled back.
   */
  claim(scope: TenantScope, id: string, tx: EntityManager): Promise<AppointmentReminderEntity | null> {
    return this.query(scope, 'r', tx)
      .andWhere('r.id = :id', { id })
      .andWhere(`r.status = 'scheduled'`)
      .setLock('pessimistic_write')
      .getOne();
  }

  /** Settles a claimed reminder; answers it as settled. */
  async settle(
    scope: TenantScope,
    row: AppointmentReminderEntity,
    outcome: { status: ReminderStatus; reason: string | null; messageId: string | null },
    tx: EntityManager,
  ): Promise<AppointmentReminderEntity> {
    const updatedAt = clock.now();
    await this.update(scope, { id: row.id }, { ...outcome, reason: outcome.reason?.slice(0, 200) ?? null, updatedAt }, tx);
    return { ...row, ...outcome, updatedAt };
  }

  /** A reminder whose send job BullMQ gave up on: failed, if it is still scheduled. */
  async failScheduled(scope: TenantScope, id: string, reason: string): Promise<void> {
    await this.updateFromStatus(scope, id, ['scheduled'], 'status = $5, reason = $6', ['failed', reason.slice(0, 200)]);
  }
}
