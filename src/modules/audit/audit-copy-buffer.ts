import { parse as uuidBytes } from 'uuid';
import { writeUuid, writeUuidv7 } from '../../common/ids';
import type { Mode } from '../../database/tenant-owned.entity';

/** What the audit hook records of one answered request; the entry's id is made as it is buffered. */
export interface AuditRecord {
  tenantId: string;
  mode: Mode;
  /** Null for a keyless request of a public route. */
  apiKeyId: string | null;
  /** When, in epoch milliseconds. */
  at: number;
  action: string;
  resourceType: string;
  resourceId: string | null;
  status: number;
  requestId: string;
  ip: string | null;
  /** The patients whose data the answer carried (UUIDs, checked by the caller): the patient access log. */
  patientIds?: readonly string[];
}

/** The columns of a buffered tuple, in order: those a key decides first, so that they are one cached prefix. */
const COLUMNS = ['tenant_id', 'mode', 'api_key_id', 'at', 'id', 'action', 'resource_type', 'resource_id', 'status', 'request_id', 'ip'];
export const AUDIT_COPY_SQL = `COPY audit_log (${COLUMNS.join(', ')}) FROM STDIN (FORMAT binary)`;
/** One tuple per patient an entry's answer carried, in the same transaction as the entries (AuditLoader). */
const PATIENT_COLUMNS = ['tenant_id', 'mode', 'patient_id', 'at', 'audit_id'];
export const AUDIT_PATIENTS_COPY_SQL = `COPY audit_log_patients (${PATIENT_COLUMNS.join(', ')}) FROM STDIN (FORMAT binary)`;

/** Binary COPY's signature, flags and header extension length, and its trailer (PostgreSQL docs, COPY). */
const HEADER = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);
const TRAILER = Buffer.from([0xff, 0xff]);

/** Off-heap chunks of this size hold the tuples; a tuple is at most a few KiB (every text column is bounded). */
const CHUNK_BYTES = 64 * 1024;
/** PostgreSQL's epoch (2000-01-01), which binary timestamps count microseconds from, in Unix milliseconds. */
const PG_EPOCH_MS = 946_684_800_000;
/** The bytes of a tuple besides its cached prefix and route and its three texts: at, id, status, and the texts' lengths. */
const FIXED_BYTES = 4 + 8 + (4 + 16) + (4 + 2) + 3 * 4;
/** Cached tuple prefixes (one per key) and route fields: a bound, not a size anyone should reach. */
const MAX_CACHED = 10_000;

/** A patient tuple: field count, tenant, mode (4 bytes at most), patient, at, audit id. */
const PATIENT_TUPLE_BYTES = 2 + (4 + 16) + (4 + 4) + (4 + 16) + (4 + 8) + (4 + 16);
/** An entry records at most this many patients (a page holds at most 100). */
export const MAX_PATIENTS_PER_ENTRY = 1_000;
/** The patient tuples of one chunk's entries, allocated only for a chunk that has some. */
const PATIENT_CHUNK_BYTES = 2 * MAX_PATIENTS_PER_ENTRY * PATIENT_TUPLE_BYTES;

/**
 * A full or taken chunk: the bytes of whole tuples, how many entries they are, and the audit_log_patients
 * tuples of those entries (none when no answer among them carried a patient).
 */
export interface AuditChunk {
  bytes: Buffer;
  entries: number;
  patients?: Buffer;
}

/** The stream one COPY of these chunks sends: header, tuples, trailer. */
export function copyData(chunks: AuditChunk[]): Buffer[] {
  return [HEADER, ...chunks.map((c) => c.bytes), TRAILER];
}

/** The audit_log_patients COPY of these chunks' entries, or null when they carried no patient. */
export function patientCopyData(chunks: AuditChunk[]): Buffer[] | null {
  const tuples = chunks.flatMap((c) => (c.patients ? [c.patients] : []));
  return tuples.length ? [HEADER, ...tuples, TRAILER] : null;
}

/**
 * Buffers audit entries as tuples of PostgreSQL's binary COPY format in off-heap memory, the moment they are
 * recorded. Kept as JavaScript objects until a flush, every entry outlived the young generation and was
 * promoted; as text lines, building and writing each line's string was most of the hook's cost. Here an
 * entry is written field by field: the fields its key decides (tenant, mode, key) and its route decides
 * (action, resource type) are copied from bytes cached once, the id is generated straight into the chunk,
 * and only the resource id, request id and IP are encoded per entry. PostgreSQL reads binary uuids and
 * timestamps without parsing text (bench/README.md, Audit log).
 */
export class AuditCopyBuffer {
  private full: AuditChunk[] = [];
  private current = Buffer.allocUnsafeSlow(CHUNK_BYTES);
  private used = 0;
  private entriesInCurrent = 0;
  private patients?: Buffer;
  private patientsUsed = 0;
  private readonly prefixes = new Map<string, Buffer>();
  private readonly patientPrefixes = new Map<string, Buffer>();
  private readonly routes = new Map<string, Map<string, Buffer>>();
  /** Entries buffered, not yet taken. */
  size = 0;

  append(r: AuditRecord): void {
    const prefix = this.prefixOf(r);
    const route = this.routeOf(r.action, r.resourceType);
    // A UTF-16 unit never takes more than 3 bytes of UTF-8: the bound saves measuring every string.
    const most = prefix.length + route.length + FIXED_BYTES + 3 * (r.requestId.length + (r.resourceId?.length ?? 0) + (r.ip?.length ?? 0));
    const patients = !r.patientIds?.length
      ? undefined
      : r.patientIds.length > MAX_PATIENTS_PER_ENTRY
        ? r.patientIds.slice(0, MAX_PATIENTS_PER_ENTRY)
        : r.patientIds;
    const patientBytes = (patients?.length ?? 0) * PATIENT_TUPLE_BYTES;
    if (this.used + most > CHUNK_BYTES || this.patientsUsed + patientBytes > PATIENT_CHUNK_BYTES) this.seal();
    const buf = this.current;
    let at = this.used + prefix.copy(buf, this.used);
    const timeAt = at;
    const micros = (r.at - PG_EPOCH_MS) * 1000;
    const high = Math.floor(micros / 0x1_0000_0000);
    at = buf.writeInt32BE(8, at);
    at = buf.writeInt32BE(high, at);
    at = buf.writeUInt32BE(micros - high * 0x1_0000_0000, at);
    at = buf.writeInt32BE(16, at);
    writeUuidv7(buf, at);
    at += 16;
    if (patients) this.appendPatients(r, patients, buf.subarray(timeAt, at));
    at += route.copy(buf, at);
    at = this.text(r.resourceId, at);
    at = buf.writeInt32BE(2, at);
    at = buf.writeInt16BE(r.status, at);
    at = this.text(r.requestId, at);
    this.used = this.text(r.ip, at);
    this.entriesInCurrent++;
    this.size++;
  }

  /** One audit_log_patients tuple per patient: the entry's tenant and mode, the patient, and the entry's time and id fields. */
  private appendPatients(r: AuditRecord, patientIds: readonly string[], timeAndId: Buffer): void {
    const prefix = this.patientPrefixOf(r);
    const buf = (this.patients ??= Buffer.allocUnsafeSlow(PATIENT_CHUNK_BYTES));
    let at = this.patientsUsed;
    // TypedArray#set and plain byte writes: Buffer#copy and #writeInt32BE cost a native call each, 50 times a page.
    for (const id of patientIds) {
      buf.set(prefix, at);
      at += prefix.length;
      buf.set(UUID_LENGTH, at);
      writeUuid(buf, id, at + 4);
      buf.set(timeAndId, at + 20);
      at += 20 + timeAndId.length;
    }
    this.patientsUsed = at;
  }

  /** Everything buffered, oldest first; the buffer starts empty. */
  take(): AuditChunk[] {
    this.seal();
    const taken = this.full;
    this.full = [];
    this.size = 0;
    return taken;
  }

  /** Puts back chunks a failed write took, ahead of anything buffered since. */
  restore(chunks: AuditChunk[]): void {
    this.full.unshift(...chunks);
    this.size += chunks.reduce((n, c) => n + c.entries, 0);
  }

  /** Drops the oldest chunks until at most `maxEntries` remain; answers how many entries were dropped. */
  dropOldest(maxEntries: number): number {
    let dropped = 0;
    while (this.size > maxEntries && this.full.length) {
      const chunk = this.full.shift()!;
      dropped += chunk.entries;
      this.size -= chunk.entries;
    }
    return dropped;
  }

  /** A text field (length, then UTF-8) or a null one (length -1) at `at`; answers where the next begins. */
  private text(value: string | null, at: number): number {
    if (value === null) return this.current.writeInt32BE(-1, at);
    // No PostgreSQL text can hold NUL, and a path parameter can carry %00: it would fail the whole batch.
    const written = this.current.write(value.includes('\0') ? value.replaceAll('\0', '') : value, at + 4, 'utf8');
    this.current.writeInt32BE(written, at);
    return at + 4 + written;
  }

  /** The field count and the tenant, mode and key fields, which one key (or a keyless tenant and mode) decides. */
  private prefixOf(r: AuditRecord): Buffer {
    const cacheKey = r.apiKeyId ?? `${r.tenantId}:${r.mode}`;
    let prefix = this.prefixes.get(cacheKey);
    if (!prefix) {
      const count = Buffer.alloc(2);
      count.writeInt16BE(COLUMNS.length);
      prefix = Buffer.concat([count, uuidField(r.tenantId), textField(r.mode), r.apiKeyId ? uuidField(r.apiKeyId) : NULL_FIELD]);
      remember(this.prefixes, cacheKey, prefix);
    }
    return prefix;
  }

  /** The field count, tenant and mode of a patient tuple. */
  private patientPrefixOf(r: AuditRecord): Buffer {
    const cacheKey = `${r.tenantId}:${r.mode}`;
    let prefix = this.patientPrefixes.get(cacheKey);
    if (!prefix) {
      const count = Buffer.alloc(2);
      count.writeInt16BE(PATIENT_COLUMNS.length);
      prefix = Buffer.concat([count, uuidField(r.tenantId), textField(r.mode)]);
      remember(this.patientPrefixes, cacheKey, prefix);
    }
    return prefix;
  }

  /** The action and resource type fields of a route. */
  private routeOf(action: string, resourceType: string): Buffer {
    let byType = this.routes.get(action);
    if (!byType) remember(this.routes, action, (byType = new Map()));
    let route = byType.get(resourceType);
    if (!route) byType.set(resourceType, (route = Buffer.concat([textField(action), textField(resourceType)])));
    return route;
  }

  /** Closes the current chunk (if it holds anything) and starts a new one. */
  private seal(): void {
    if (!this.entriesInCurrent) return;
    const patients = this.patients?.subarray(0, this.patientsUsed);
    this.full.push({ bytes: this.current.subarray(0, this.used), entries: this.entriesInCurrent, ...(patients ? { patients } : {}) });
    this.current = Buffer.allocUnsafeSlow(CHUNK_BYTES);
    this.used = 0;
    this.entriesInCurrent = 0;
    this.patients = undefined;
    this.patientsUsed = 0;
  }
}

const NULL_FIELD = Buffer.from([0xff, 0xff, 0xff, 0xff]);
/** A uuid field's length word. */
const UUID_LENGTH = Buffer.from([0, 0, 0, 16]);

function field(bytes: Uint8Array): Buffer {
  const out = Buffer.alloc(4 + bytes.length);
  out.writeInt32BE(bytes.length);
  out.set(bytes, 4);
  return out;
}

const uuidField = (id: string): Buffer => field(uuidBytes(id));

const textField = (value: string): Buffer => field(Buffer.from(value, 'utf8'));

function remember<T>(cache: Map<string, T>, key: string, value: T): void {
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(key, value);
}
