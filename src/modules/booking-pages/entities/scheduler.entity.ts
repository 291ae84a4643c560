import { Check, Column, Entity, Index } from 'typeorm';
import { References } from '../../../database/references';
import { TenantOwnedEntity } from '../../../database/tenant-owned.entity';

/**
 * A public booking page: a slug, the providers it books and the length of its appointments. The public
 * routes find it by id alone (the id is the page's address), and everything they do runs in its tenant
 * and mode.
 */
@Entity('schedulers')
@Index('IDX_SCHEDULERS_TENANT_MODE_CREATED', ['tenantId', 'mode', 'createdAt', 'id'])
@Index('UQ_SCHEDULERS_TENANT_MODE_SLUG', ['tenantId', 'mode', 'slug'], { unique: true })
@Check(`"duration" BETWEEN 5 AND 480`)
@Check(`("duration" IS NULL) <> ("appointment_type_id" IS NULL)`)
export class SchedulerEntity extends TenantOwnedEntity {
  @Column({ type: 'varchar', length: 200 })
  name!: string;

  @Column({ type: 'varchar', length: 100 })
  slug!: string;

  @Column({ type: 'varchar', length: 2000, nullable: true })
  description!: string | null;

  /** Providers of the same tenant and mode, checked when written. */
  @Column({ type: 'uuid', array: true })
  providerIds!: string[];

  /** Minutes; null when an appointment type gives them. */
  @Column({ type: 'integer', nullable: true })
  duration!: number | null;

  /** The appointment type the page books (its duration, policies and providers); null for a bare duration. */
  @Column({ type: 'uuid', nullable: true })
  appointmentTypeId!: string | null;

  @References('AppointmentTypeEntity', 'appointment_type_id')
  readonly appointmentTypeFk?: never;

  @Column({ type: 'varchar', length: 100, nullable: true })
  type!: string | null;

  @Column({ type: 'boolean' })
  isActive!: boolean;

  /** The booking form asks for a phone and refuses a booking without one. */
  @Column({ type: 'boolean', default: false })
  requirePhone!: boolean;

  /** Incremented by one statement per public view. */
  @Column({ type: 'integer', default: 0 })
  viewsCount!: number;

  /** Incremented by one statement in each public booking's transaction. */
  @Column({ type: 'integer', default: 0 })
  bookingsCount!: number;
}
