import { decodeAuditCopy, readCopyTuples } from '../../../test/helpers/audit-copy';
import { AuditCopyBuffer, AuditRecord, copyData, patientCopyData } from './audit-copy-buffer';
import { stringify as uuidString } from 'uuid';

const record = (over: Partial<AuditRecord> = {}): AuditRecord => ({
  tenantId: '0193a5b2-7c1d-7e4f-8a9b-000000000001',
  mode: 'live',
  apiKeyId: '0193a5b2-7c1d-7e4f-8a9b-000000000002',
  at: Date.parse('2026-11-24T08:00:00.123Z'),
  action: 'patient.read',
  resourceType: 'patient',
  resourceId: 'p1',
  status: 200,
  requestId: 'req-1',
  ip: '203.0.113.7',
  ...over,
});

const decoded = (buffer: AuditCopyBuffer) => decodeAuditCopy(copyData(buffer.take()));

describe('AuditCopyBuffer', () => {
  it('writes each entry as one binary COPY tuple of its 11 columns, with a new UUIDv7 and nulls as nulls', () => {
    const buffer = new AuditCopyBuffer();
    buffer.append(record());
    buffer.append(record({ apiKeyId: null, mode: 'test', resourceId: null, ip: null, status: 404, action: 'patient.update' }));
    const [first, second] = decoded(buffer);
    const { id, ...rest } = first;
    expect(rest).toEqual({ ...record(), at: new Date('2026-11-24T08:00:00.123Z') });
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(second).toMatchObject({ apiKeyId: null, mode: 'test', resourceId: null, ip: null, status: 404, action: 'patient.update' });
    expect(second.id > first.id).toBe(true);
  });

  it('keeps text as it is (binary COPY escapes nothing) except NUL, which no PostgreSQL text can hold', () => {
    const buffer = new AuditCopyBuffer();
    buffer.append(record({ resourceId: 'a\tb\nc\rd\\e\0f\\N', requestId: 'plain ünïcode ✓' }));
    const [entry] = decoded(buffer);
    expect(entry.resourceId).toBe('a\tb\nc\rd\\ef\\N');
    expect(entry.requestId).toBe('plain ünïcode ✓');
  });

  it('frames one COPY: the signature first, whole tuples in every chunk, the trailer last', () => {
    const buffer = new AuditCopyBuffer();
    const long = 'é'.repeat(250); // 2 bytes each in UTF-8: a chunk fills before its UTF-16 length says
    for (let i = 0; i < 300; i++) buffer.append(record({ resourceId: long, requestId: `req-${i}` }));
    expect(buffer.size).toBe(300);
    const chunks = buffer.take();
    expect(buffer.size).toBe(0);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(readCopyTuples(copyData([chunk]))).toHaveLength(chunk.entries);
    expect(decodeAuditCopy(copyData(chunks)).map((e) => e.requestId)).toEqual(Array.from({ length: 300 }, (_, i) => `req-${i}`));
  });

  it('gives back what a failed write took, ahead of what came since', () => {
    const buffer = new AuditCopyBuffer();
    for (let i = 0; i < 3; i++) buffer.append(record({ requestId: `req-${i}` }));
    const taken = buffer.take();
    buffer.append(record({ requestId: 'later' }));
    buffer.restore(taken);
    expect(buffer.size).toBe(4);
    expect(decoded(buffer).map((e) => e.requestId)).toEqual(['req-0', 'req-1', 'req-2', 'later']);
  });

  it('drops the oldest whole chunks past a limit and says how many entries went', () => {
    const buffer = new AuditCopyBuffer();
    for (let i = 0; i < 2000; i++) buffer.append(record({ requestId: `req-${i}` }));
    const dropped = buffer.dropOldest(1000);
    expect(dropped).toBeGreaterThanOrEqual(1000);
    expect(buffer.size).toBe(2000 - dropped);
    expect(decoded(buffer)[0].requestId).toBe(`req-${dropped}`);
  });

  it('caches a key’s fields by key and a keyless tenant’s by tenant and mode, never mixing them', () => {
    const buffer = new AuditCopyBuffer();
    const other = '0193a5b2-7c1d-7e4f-8a9b-000000000009';
    buffer.append(record());
    buffer.append(record({ apiKeyId: null }));
    buffer.append(record({ apiKeyId: null, tenantId: other }));
    buffer.append(record({ apiKeyId: null, mode: 'test' }));
    expect(decoded(buffer).map((e) => [e.tenantId.slice(-1), e.mode, e.apiKeyId?.slice(-1) ?? null])).toEqual([
      ['1', 'live', '2'],
      ['1', 'live', null],
      ['9', 'live', null],
      ['1', 'test', null],
    ]);
  });

  it("writes the patients an answer carried as audit_log_patients tuples with the entry's tenant, mode, time and id", () => {
    const buffer = new AuditCopyBuffer();
    const patients = ['0193a5b2-7c1d-7e4f-8a9b-0000000000aa', '0193A5B2-7C1D-7E4F-8A9B-0000000000BB'];
    buffer.append(record());
    buffer.append(record({ patientIds: patients, mode: 'test' }));
    const chunks = buffer.take();
    const [, carrying] = decodeAuditCopy(copyData(chunks));
    const tuples = readCopyTuples(patientCopyData(chunks)!);
    expect(tuples).toHaveLength(2);
    for (const [i, [tenant, mode, patient, at, auditId]] of tuples.entries()) {
      expect(uuidString(tenant!)).toBe(record().tenantId);
      expect(mode!.toString()).toBe('test');
      expect(uuidString(patient!)).toBe(patients[i].toLowerCase());
      expect(new Date(Number(at!.readBigInt64BE()) / 1000 + Date.UTC(2000, 0, 1))).toEqual(carrying.at);
      expect(uuidString(auditId!)).toBe(carrying.id);
    }
    buffer.append(record());
    expect(patientCopyData(buffer.take())).toBeNull();
  });
});
