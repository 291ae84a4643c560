import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { References } from '../../../database/references';
import type { Mode, TenantScope } from '../../../database/tenant-owned.entity';
import { InstantColumn } from '../../../database/instant-column';

/**
 * The number a tenant texts from in one mode, assigned by an operator (`sms-numbers:assign`). A number
 * answers for one tenant per mode, so that replies to it (STOP, HELP, C) reach that practice alone.
 */
@Entity('sms_numbers')
@Check(`"mode" IN ('test', 'live')`)
@Index('UQ_SMS_NUMBERS_NUMBER_MODE', ['number', 'mode'], { unique: true })
export class SmsNumberEntity implements TenantScope {
  @PrimaryColumn('uuid')
  tenantId!: string;

  @References('TenantEntity', 'tenant_id', 'CASCADE')
  readonly tenantFk?: never;

  @PrimaryColumn({ type: 'varchar', length: 4 })
  mode!: Mode;

  @Column({ type: 'varchar', length: 16 })
  number!: string;

  @InstantColumn()
  assignedAt!: Date;
}
