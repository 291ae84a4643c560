import { Injectable } from '@nestjs/common';
import type { TenantScope } from '../../database/tenant-owned.entity';

/** Confirms a patient's next scheduled appointment within `withinMs`; answers whether one was confirmed. */
export type ConfirmNextAppointment = (scope: TenantScope, patientId: string, withinMs: number) => Promise<boolean>;

/**
 * Where the module that owns appointments (Scheduling, which itself imports this module for its reminders'
 * templates) plugs in the confirmation a "C" reply asks for, so that SMS acts on it without importing it.
 */
@Injectable()
export class SmsConfirmations {
  private confirmNext?: ConfirmNextAppointment;

  provide(confirmNext: ConfirmNextAppointment): void {
    this.confirmNext = confirmNext;
  }

  confirm(scope: TenantScope, patientId: string, withinMs: number): Promise<boolean> {
    if (!this.confirmNext) throw new Error('No module confirms appointments: import SchedulingModule');
    return this.confirmNext(scope, patientId, withinMs);
  }
}
