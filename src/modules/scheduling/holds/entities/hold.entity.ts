import { Check, Column, Entity, Index } from 'typeorm';
import { InstantColumn } from '../../../../database/instant-column';
import { References } from '../../../../database/references';
import { ProviderSpan } from '../../provider-span';

export const HOLD_STATUSES = ['active', 'consumed', 'released', 'expired'] as const;
export type HoldStatus = (typeof HOLD_STATUSES)[number];

/**
 * A provider's time kept for a while, booked for everyone else while `active` and not past `expiresAt`.
 * Its claim in provider_time_claims (kept by a trigger while it is active) is what refuses an overlap.
 */
@Entity('holds')
@Index('IDX_HOLDS_TENANT_MODE_PROVIDER_ACTIVE', ['tenantId', 'mode', 'providerId', 'startsAt'], { where: `status = 'active'` })
@Check(`"ends_at" > "starts_at"`)
@Check(`"duration" BETWEEN 5 AND 480`)
@Check(`"status" IN ('active', 'consumed', 'released', 'expired')`)
export class HoldEntity extends ProviderSpan {
  /** The type it holds time for; null for a bare duration. */
  @Column({ type: 'uuid', nullable: true })
  appointmentTypeId!: string | null;

  @References('AppointmentTypeEntity', 'appointment_type_id')
  readonly appointmentTypeFk?: never;

  /** The booking page that took it (only that page books it); null for a hold taken with a key. */
  @Column({ type: 'uuid', nullable: true })
  schedulerId!: string | null;

  /** On the scope's business clock. */
  @InstantColumn()
  expiresAt!: Date;

  @Column({ type: 'varchar', length: 8 })
  status!: HoldStatus;

  /** The appointment that consumed it. */
  @Column({ type: 'uuid', nullable: true })
  appointmentId!: string | null;

  @References('AppointmentEntity', 'appointment_id', 'SET NULL')
  readonly appointmentFk?: never;
}
