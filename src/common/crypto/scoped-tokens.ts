import { Mode, MODES, TenantScope } from '../../database/tenant-owned.entity';
import { isUuid } from '../ids';
import { AppCrypto, CryptoPurpose } from './app-crypto';

/** What a scoped token names: one record (by id) of one tenant and mode. */
export interface ScopedTokenSubject extends TenantScope {
  id: string;
}

/**
 * Tokens that name one record of one tenant and mode, for links sent to people without a key (unsubscribe,
 * manage an appointment): `{"t":tenantId,"m":mode,"<field>":id}` signed by AppCrypto.signToken under the
 * purpose, so a token names exactly one record, cannot be altered to name another, and a token of one
 * purpose never verifies as another's. The same record always gets the same token; tokens do not expire.
 */
export class ScopedTokens {
  constructor(
    private readonly crypto: AppCrypto,
    private readonly purpose: CryptoPurpose,
    /** The payload member that holds the record's id (one letter, as existing links have it). */
    private readonly field: string,
  ) {}

  sign(subject: ScopedTokenSubject): string {
    return this.crypto.signToken(this.purpose, { t: subject.tenantId, m: subject.mode, [this.field]: subject.id });
  }

  /** The subject of a token signed for this purpose, or null for anything else (altered, forged, malformed). */
  verify(token: string): ScopedTokenSubject | null {
    const payload = this.crypto.verifyToken<Record<string, unknown>>(this.purpose, token);
    if (!payload || typeof payload !== 'object') return null;
    const { t, m } = payload;
    const id = payload[this.field];
    if (!isUuid(t) || !isUuid(id) || !MODES.includes(m as Mode)) return null;
    return { tenantId: t, mode: m as Mode, id };
  }
}
