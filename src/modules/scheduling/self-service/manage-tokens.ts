import { Injectable } from '@nestjs/common';
import { AppCrypto, ScopedTokens } from '../../../common/crypto';
import { apiPath } from '../../../common/http/responses/response-headers';
import { isLinkToken, newLinkToken } from '../../../common/ids';
import { AppConfig } from '../../../config/app-config';
import { TenantScope } from '../../../database/tenant-owned.entity';
import { AppointmentsRepository } from '../appointments/appointments.repository';

/** What a manage link names: one appointment of one tenant and mode. */
export interface ManagedAppointment extends TenantScope {
  appointmentId: string;
}

/** A new appointment's manage id (stored with it, never changed). */
export function newManageId(): string {
  return newLinkToken();
}

/**
 * A patient's manage link, `{PUBLIC_URL}/api/v1/public/appointments/{token}`. The token is the appointment's
 * manage id: random, stored with it and unique across tenants, short enough that a reminder text with its link
 * is one SMS. Links sent before carry the appointment with its tenant and mode signed (ScopedTokens, under a
 * purpose of its own so an unsubscribe token never verifies here); they keep working. Either way the same
 * appointment keeps the same link across reschedules; what it may still do is decided from the appointment.
 */
@Injectable()
export class ManageTokens {
  private readonly signed: ScopedTokens;

  constructor(
    crypto: AppCrypto,
    private readonly config: AppConfig,
    private readonly appointments: AppointmentsRepository,
  ) {
    this.signed = new ScopedTokens(crypto, 'appointment-manage-token', 'a');
  }

  /** `{PUBLIC_URL}/api/v1/public/appointments/{manageId}`. */
  url(manageId: string): string {
    return `${this.config.http.publicUrl}${apiPath('public', 'appointments', manageId)}`;
  }

  /** The signed token that links carried before manage ids (still accepted by `resolve`). */
  token(subject: ManagedAppointment): string {
    return this.signed.sign({ tenantId: subject.tenantId, mode: subject.mode, id: subject.appointmentId });
  }

  /**
   * The appointment a link's token names, with the tenant and mode of the row found (a manage id) or signed by
   * this API (an earlier link); null for anything else: unknown, altered, forged, another purpose's.
   */
  async resolve(token: string): Promise<ManagedAppointment | null> {
    if (isLinkToken(token)) return this.appointments.findByManageId(token);
    const subject = this.signed.verify(token);
    return subject && { tenantId: subject.tenantId, mode: subject.mode, appointmentId: subject.id };
  }
}
