import { Injectable } from '@nestjs/common';
import { AppCrypto } from '../../common/crypto';
import { apiPath } from '../../common/http/response-headers';
import { AppConfig } from '../../config/app-config';
import { MODES, TenantScope } from '../../database/tenant-owned.entity';

/** Signed for this purpose only: an unsubscribe token (another purpose, so another key) never verifies here. */
const PURPOSE = 'appointment-manage-token';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What a manage link names: one appointment of one tenant and mode. */
export interface ManagedAppointment extends TenantScope {
  appointmentId: string;
}

interface Payload {
  t: string;
  m: string;
  a: string;
}

/**
 * A patient's manage link: the appointment with its tenant and mode, signed with an HMAC under the
 * application secret (AppCrypto, as unsubscribe links are), so that a link names exactly one appointment
 * and cannot be altered to name another. The same appointment always gets the same link, so a link sent in
 * a reminder keeps working after a reschedule; what it may still do is decided from the appointment.
 */
@Injectable()
export class ManageTokens {
  constructor(
    private readonly crypto: AppCrypto,
    private readonly config: AppConfig,
  ) {}

  token(subject: ManagedAppointment): string {
    return this.crypto.signToken(PURPOSE, { t: subject.tenantId, m: subject.mode, a: subject.appointmentId } satisfies Payload);
  }

  /** `{PUBLIC_URL}/api/v1/public/appointments/{token}`. */
  url(subject: ManagedAppointment): string {
    return `${this.config.http.publicUrl}${apiPath('public', 'appointments', this.token(subject))}`;
  }

  /** The appointment a token this API signed names, or null for anything else (altered, forged, another purpose). */
  verify(token: string): ManagedAppointment | null {
    const payload = this.crypto.verifyToken<Payload>(PURPOSE, token);
    if (!payload || typeof payload !== 'object') return null;
    const { t, m, a } = payload;
    if (typeof t !== 'string' || !UUID.test(t) || typeof a !== 'string' || !UUID.test(a) || !MODES.includes(m as never)) return null;
    return { tenantId: t, mode: m as TenantScope['mode'], appointmentId: a };
  }
}
