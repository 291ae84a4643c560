import { Check, Column, Entity, Index } from 'typeorm';
import { InstantColumn } from '../../../../database/instant-column';
import { References } from '../../../../database/references';
import { ProviderSpan } from '../../provider-span';

export const WAITLIST_OFFER_STATUSES = ['pending', 'accepted', 'declined', 'expired'] as const;
export type WaitlistOfferStatus = (typeof WAITLIST_OFFER_STATUSES)[number];

/**
 * A freed slot (the span) offered to one waitlist entry, kept for it by a hold until `expiresAt` (on the scope's clock).
 * `freeingId` names the freeing that made it: unique, so that a freeing's job that runs twice offers once.
 */
@Entity('waitlist_offers')
@Index('UQ_WAITLIST_OFFERS_FREEING', ['freeingId'], { unique: true })
@Index('UQ_WAITLIST_OFFERS_TOKEN', ['token'], { unique: true })
@Index('IDX_WAITLIST_OFFERS_ENTRY', ['tenantId', 'mode', 'entryId'])
@Check(`"status" IN ('pending', 'accepted', 'declined', 'expired')`)
export class WaitlistOfferEntity extends ProviderSpan {
  @Column('uuid')
  entryId!: string;

  @References('WaitlistEntryEntity', 'entry_id', 'CASCADE')
  readonly entryFk?: never;

  @Column('uuid')
  freeingId!: string;

  @Column('uuid')
  holdId!: string;

  @References('HoldEntity', 'hold_id')
  readonly holdFk?: never;

  @InstantColumn()
  expiresAt!: Date;

  /** The patient's link (`/public/waitlist-offers/{token}`): random, unique across tenants. */
  @Column({ type: 'varchar', length: 16 })
  token!: string;

  @Column({ type: 'varchar', length: 8 })
  status!: WaitlistOfferStatus;

  /** The appointment booked (or moved) by accepting it. */
  @Column({ type: 'uuid', nullable: true })
  appointmentId!: string | null;

  @References('AppointmentEntity', 'appointment_id', 'SET NULL')
  readonly appointmentFk?: never;
}
