import { Injectable } from '@nestjs/common';
import { AppCrypto } from '../../common/crypto';
import { AppConfig } from '../../config/app-config';
import { apiPath } from '../../common/http/response-headers';
import { MODES, TenantScope } from '../../database/tenant-owned.entity';

const PURPOSE = 'unsubscribe-token';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Who an unsubscribe link opts out: a patient of one tenant and mode. */
export interface UnsubscribeSubject extends TenantScope {
  patientId: string;
}

interface Payload {
  t: string;
  m: string;
  p: string;
}

/**
 * Unsubscribe links: the tenant, mode and patient, signed with an HMAC under the application secret
 * (AppCrypto, purpose `unsubscribe-token`), so a link names exactly one patient and cannot be altered to
 * name another. A link does not expire: RFC 8058 links must keep working for as long as the mail is read.
 */
@Injectable()
export class UnsubscribeTokens {
  constructor(
    private readonly crypto: AppCrypto,
    private readonly config: AppConfig,
  ) {}

  token(subject: UnsubscribeSubject): string {
    return this.crypto.signToken(PURPOSE, { t: subject.tenantId, m: subject.mode, p: subject.patientId } satisfies Payload);
  }

  /** The one-click URL (RFC 8058) for the List-Unsubscribe header. */
  url(subject: UnsubscribeSubject): string {
    return `${this.config.http.publicUrl}${apiPath('public', 'unsubscribe', this.token(subject))}`;
  }

  /** The subject of a token this API signed, or null for anything else (altered, forged, malformed). */
  verify(token: string): UnsubscribeSubject | null {
    const payload = this.crypto.verifyToken<Payload>(PURPOSE, token);
    if (!payload || typeof payload !== 'object') return null;
    const { t, m, p } = payload;
    if (typeof t !== 'string' || !UUID.test(t) || typeof p !== 'string' || !UUID.test(p) || !MODES.includes(m as never)) return null;
    return { tenantId: t, mode: m as TenantScope['mode'], patientId: p };
  }
}
