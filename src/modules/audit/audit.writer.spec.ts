import { DependencyStatus } from '../../common/observability/dependency-status';
import { DatabaseError } from 'pg';
import { loadConfig } from '../../config/app-config';
import { decodeAuditCopy } from '../../../test/helpers/audit-copy';
import type { AuditRecord } from './audit-copy-buffer';
import type { AuditLoader } from './audit.loader';
import { AuditWriter } from './audit.writer';

const entry = (requestId: string): AuditRecord => ({
  tenantId: '0193a5b2-7c1d-7e4f-8a9b-000000000001',
  mode: 'test',
  at: Date.now(),
  apiKeyId: null,
  action: 'patient.read',
  resourceType: 'patient',
  resourceId: null,
  status: 200,
  requestId,
  ip: null,
});

/** The writer's retry policy, against a loader whose COPY fails as told (the real COPY: audit-log e2e). */
function writerFailingWith(failures: (Error | undefined)[]): { writer: AuditWriter; loaded: string[]; copies: number[] } {
  const loaded: string[] = [];
  const copies: number[] = [];
  const loader = {
    copy: async (data: Buffer[]) => {
      const entries = decodeAuditCopy(data).map((e) => e.requestId);
      copies.push(entries.length);
      const failure = failures.shift();
      if (failure) throw failure;
      loaded.push(...entries);
    },
    close: async () => undefined,
  } as unknown as AuditLoader;
  return { writer: new AuditWriter(loader, loadConfig({}), new DependencyStatus()), loaded, copies };
}

const connectionRefused = () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
/** Entries with 120-character request ids: ~250 bytes each, so 40,000 fill some 150 chunks, several COPYs' worth. */
const BACKLOG = 40_000;
const many = (prefix: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${prefix}-${i}-`.padEnd(120, 'x'));

const sqlError = (code: string): DatabaseError => Object.assign(new DatabaseError('refused', 0, 'error'), { code });

describe('AuditWriter', () => {
  it('keeps a batch the database could not take and writes it, in order, at the next flush', async () => {
    const { writer, loaded } = writerFailingWith([connectionRefused()]);
    writer.write(entry('a'));
    await writer.flush();
    expect(loaded).toEqual([]);
    writer.write(entry('b'));
    await writer.flush();
    expect(loaded).toEqual(['a', 'b']);
  });

  it('drops a batch the database refuses as data (SQLSTATE class 22 or 23), so later entries are not held back', async () => {
    const { writer, loaded } = writerFailingWith([sqlError('22021'), sqlError('23505')]);
    writer.write(entry('bad'));
    await writer.flush();
    writer.write(entry('also bad'));
    await writer.flush();
    writer.write(entry('c'));
    await writer.flush();
    expect(loaded).toEqual(['c']);
  });

  it('loads a large backlog in bounded COPYs, and a COPY refused as data loses only its own entries', async () => {
    const { writer, loaded, copies } = writerFailingWith([undefined, sqlError('22021')]);
    const ids = many('e', BACKLOG);
    for (const id of ids) writer.write(entry(id));
    await writer.flush();
    expect(copies.length).toBeGreaterThan(2);
    expect(Math.max(...copies)).toBeLessThan(BACKLOG / 2);
    expect(copies.reduce((a, b) => a + b, 0)).toBe(BACKLOG);
    const refused = new Set(ids.slice(copies[0], copies[0] + copies[1]));
    expect(loaded).toEqual(ids.filter((id) => !refused.has(id)));
  });

  it('after a COPY fails for want of the database, keeps it and the rest, in order, for the next flush', async () => {
    // The flush FLUSH_AT starts, then this test's own: both find the database gone after the first COPY.
    const { writer, loaded, copies } = writerFailingWith([undefined, connectionRefused(), connectionRefused()]);
    const ids = many('e', BACKLOG);
    for (const id of ids) writer.write(entry(id));
    await writer.flush();
    expect(copies).toHaveLength(3);
    expect(copies[2]).toBe(copies[1]); // the same first batch of what was kept, tried again
    expect(loaded).toEqual(ids.slice(0, copies[0]));
    writer.write(entry('later'));
    await writer.flush();
    expect(loaded).toEqual([...ids, 'later']);
  });

  it('at a graceful shutdown, where no flush follows, tries a batch the database could not take again until it is written', async () => {
    const { writer, loaded, copies } = writerFailingWith([connectionRefused(), connectionRefused()]);
    writer.write(entry('last'));
    await writer.onApplicationShutdown();
    expect(copies).toEqual([1, 1, 1]);
    expect(loaded).toEqual(['last']);
  });
});
