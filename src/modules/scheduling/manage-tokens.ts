import { Injectable } from '@nestjs/common';
import { AppCrypto, ScopedTokens } from '../../common/crypto';
import { apiPath } from '../../common/http/response-headers';
import { AppConfig } from '../../config/app-config';
import { TenantScope } from '../../database/tenant-owned.entity';

/** What a manage link names: one appointment of one tenant and mode. */
export interface ManagedAppointment extends TenantScope {
  appointmentId: string;
}

/**
 * A patient's manage link: the appointment with its tenant and mode, signed (ScopedTokens, as unsubscribe
 * links are, under a purpose of its own so an unsubscribe token never verifies here), so that a link names
 * exactly one appointment and cannot be altered to name another. The same appointment always gets the same
 * link, so a link sent in a reminder keeps working after a reschedule; what it may still do is decided from
 * the appointment.
 */
@Injectable()
export class ManageTokens {
  private readonly tokens: ScopedTokens;

  constructor(
    crypto: AppCrypto,
    private readonly config: AppConfig,
  ) {
    this.tokens = new ScopedTokens(crypto, 'appointment-manage-token', 'a');
  }

  token(subject: ManagedAppointment): string {
    return this.tokens.sign({ tenantId: subject.tenantId, mode: subject.mode, id: subject.appointmentId });
  }

  /** `{PUBLIC_URL}/api/v1/public/appointments/{token}`. */
  url(subject: ManagedAppointment): string {
    return `${this.config.http.publicUrl}${apiPath('public', 'appointments', this.token(subject))}`;
  }

  /** The appointment a token this API signed names, or null for anything else (altered, forged, another purpose). */
  verify(token: string): ManagedAppointment | null {
    const subject = this.tokens.verify(token);
    return subject && { tenantId: subject.tenantId, mode: subject.mode, appointmentId: subject.id };
  }
}
