import { stringify as uuidString } from 'uuid';
import type { Mode } from '../../src/database/tenant-owned.entity';
import type { AuditRecord } from '../../src/modules/audit/audit-copy-buffer';

/** An audit entry read back from a binary COPY stream: what was recorded, its new id, its time as a Date. */
export interface DecodedAuditEntry extends Omit<AuditRecord, 'at'> {
  id: string;
  at: Date;
}

/** Reads a binary COPY stream (header, tuples, trailer) as PostgreSQL would, failing on anything malformed. */
export function readCopyTuples(data: Buffer[]): (Buffer | null)[][] {
  const all = Buffer.concat(data);
  if (all.subarray(0, 11).toString('latin1') !== 'PGCOPY\n\xff\r\n\0') throw new Error('no binary COPY signature');
  let at = 15 + 4 + all.readInt32BE(15); // flags, then the header extension's length and bytes
  const tuples: (Buffer | null)[][] = [];
  for (let fields = all.readInt16BE(at); fields !== -1; fields = all.readInt16BE(at)) {
    at += 2;
    const tuple: (Buffer | null)[] = [];
    for (let i = 0; i < fields; i++) {
      const length = all.readInt32BE(at);
      at += 4;
      tuple.push(length === -1 ? null : all.subarray(at, (at += length)));
    }
    tuples.push(tuple);
  }
  if (at + 2 !== all.length) throw new Error(`${all.length - at - 2} bytes after the trailer`);
  return tuples;
}

export function decodeAuditCopy(data: Buffer[]): DecodedAuditEntry[] {
  const text = (b: Buffer | null) => (b === null ? null : b.toString('utf8'));
  const uuid = (b: Buffer | null) => (b === null ? null : uuidString(b));
  return readCopyTuples(data).map(([tenantId, mode, apiKeyId, at, id, action, resourceType, resourceId, status, requestId, ip]) => ({
    tenantId: uuid(tenantId)!,
    mode: text(mode) as Mode,
    apiKeyId: uuid(apiKeyId),
    at: new Date(Number(at!.readBigInt64BE()) / 1000 + Date.UTC(2000, 0, 1)),
    id: uuid(id)!,
    action: text(action)!,
    resourceType: text(resourceType)!,
    resourceId: text(resourceId),
    status: status!.readInt16BE(),
    requestId: text(requestId)!,
    ip: text(ip),
  }));
}
