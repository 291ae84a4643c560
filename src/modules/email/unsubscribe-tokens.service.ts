import { Injectable } from '@nestjs/common';
import { AppCrypto, ScopedTokens } from '../../common/crypto';
import { AppConfig } from '../../config/app-config';
import { apiPath } from '../../common/http/responses/response-headers';
import { TenantScope } from '../../database/tenant-owned.entity';

/** Who an unsubscribe link opts out: a patient of one tenant and mode. */
export interface UnsubscribeSubject extends TenantScope {
  patientId: string;
}

/**
 * Unsubscribe links: the tenant, mode and patient, signed (ScopedTokens, purpose `unsubscribe-token`), so a
 * link names exactly one patient and cannot be altered to name another. A link does not expire: RFC 8058
 * links must keep working for as long as the mail is read.
 */
@Injectable()
export class UnsubscribeTokens {
  private readonly tokens: ScopedTokens;

  constructor(
    crypto: AppCrypto,
    private readonly config: AppConfig,
  ) {
    this.tokens = new ScopedTokens(crypto, 'unsubscribe-token', 'p');
  }

  token(subject: UnsubscribeSubject): string {
    return this.tokens.sign({ tenantId: subject.tenantId, mode: subject.mode, id: subject.patientId });
  }

  /** The one-click URL (RFC 8058) for the List-Unsubscribe header. */
  url(subject: UnsubscribeSubject): string {
    return `${this.config.http.publicUrl}${apiPath('public', 'unsubscribe', this.token(subject))}`;
  }

  /** The subject of a token this API signed, or null for anything else (altered, forged, malformed). */
  verify(token: string): UnsubscribeSubject | null {
    const subject = this.tokens.verify(token);
    return subject && { tenantId: subject.tenantId, mode: subject.mode, patientId: subject.id };
  }
}
