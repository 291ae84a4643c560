import { Column, Entity, PrimaryColumn } from 'typeorm';
import { InstantColumn } from '../../../database/instant-column';

/**
 * A phone that texted STOP to one of our sending numbers. Consent to texts is given to a number, not to a
 * patient record: it holds whatever names the recipient of a later send (a patient or a bare `to`), and
 * whichever tenant sends from that number. START removes the row.
 */
@Entity('sms_opt_outs')
export class SmsOptOutEntity {
  @PrimaryColumn({ type: 'varchar', length: 16 })
  phone!: string;

  @PrimaryColumn({ type: 'varchar', length: 16 })
  sendingNumber!: string;

  /** The word received (STOP, QUIT …). */
  @Column({ type: 'varchar', length: 16 })
  keyword!: string;

  @InstantColumn()
  optedOutAt!: Date;
}
