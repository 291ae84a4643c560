import { AuditCopyBuffer, copyLine, copyText } from './audit-copy-buffer';
import type { AuditEntryEntity } from './entities/audit-entry.entity';

const entry = (over: Partial<AuditEntryEntity> = {}): AuditEntryEntity => ({
  id: '0193a5b2-7c1d-7e4f-8a9b-0c1d2e3f4a5b',
  tenantId: '0193a5b2-7c1d-7e4f-8a9b-000000000001',
  mode: 'live',
  at: new Date('2026-11-24T08:00:00.123Z'),
  apiKeyId: '0193a5b2-7c1d-7e4f-8a9b-000000000002',
  action: 'patient.read',
  resourceType: 'patient',
  resourceId: 'p1',
  status: 200,
  requestId: 'req-1',
  ip: '203.0.113.7',
  ...over,
});

describe('AuditCopyBuffer', () => {
  it('writes an entry as one tab-separated COPY line with \\N for nulls', () => {
    expect(copyLine(entry())).toBe(
      '0193a5b2-7c1d-7e4f-8a9b-0c1d2e3f4a5b\t0193a5b2-7c1d-7e4f-8a9b-000000000001\tlive\t2026-11-24T08:00:00.123Z\t' +
        '0193a5b2-7c1d-7e4f-8a9b-000000000002\tpatient.read\tpatient\tp1\t200\treq-1\t203.0.113.7\n',
    );
    const keyless = copyLine(entry({ apiKeyId: null, resourceId: null, ip: null })).split('\t');
    expect([keyless[4], keyless[7], keyless[10]]).toEqual(['\\N', '\\N', '\\N\n']);
  });

  it('escapes what COPY would read as structure and leaves out NUL', () => {
    expect(copyText('a\tb\nc\rd\\e\0f')).toBe('a\\tb\\nc\\rd\\\\ef');
    expect(copyText('plain ünïcode ✓')).toBe('plain ünïcode ✓');
    const line = copyLine(entry({ resourceId: 'x\ty', requestId: 'r\nq' }));
    expect(line.split('\t')).toHaveLength(11);
    expect(line.indexOf('\n')).toBe(line.length - 1);
  });

  it('keeps whole lines in chunks, counts entries, and gives back what a failed write took', () => {
    const buffer = new AuditCopyBuffer();
    const long = 'é'.repeat(250); // 2 bytes each in UTF-8: a chunk fills before its UTF-16 length says
    for (let i = 0; i < 300; i++) buffer.append(entry({ resourceId: long, requestId: `req-${i}` }));
    expect(buffer.size).toBe(300);
    const chunks = buffer.take();
    expect(buffer.size).toBe(0);
    expect(chunks.length).toBeGreaterThan(1);
    const lines = Buffer.concat(chunks.map((c) => c.bytes))
      .toString('utf8')
      .split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((l) => l.split('\t')[9])).toEqual(Array.from({ length: 300 }, (_, i) => `req-${i}`));
    expect(chunks.reduce((n, c) => n + c.entries, 0)).toBe(300);

    buffer.append(entry({ requestId: 'later' }));
    buffer.restore(chunks);
    expect(buffer.size).toBe(301);
    const again = Buffer.concat(buffer.take().map((c) => c.bytes))
      .toString('utf8')
      .trimEnd()
      .split('\n');
    expect(again[0].split('\t')[9]).toBe('req-0');
    expect(again.at(-1)!.split('\t')[9]).toBe('later');
  });

  it('drops the oldest whole chunks past a limit and says how many entries went', () => {
    const buffer = new AuditCopyBuffer();
    for (let i = 0; i < 2000; i++) buffer.append(entry({ requestId: `req-${i}` }));
    const dropped = buffer.dropOldest(1000);
    expect(dropped).toBeGreaterThanOrEqual(1000);
    expect(buffer.size).toBe(2000 - dropped);
    const first = Buffer.concat(buffer.take().map((c) => c.bytes))
      .toString('utf8')
      .split('\t')[9];
    expect(first).toBe(`req-${dropped}`);
  });
});
