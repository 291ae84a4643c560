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
function writerFailingWith(failures: Error[]): { writer: AuditWriter; loaded: string[] } {
  const loaded: string[] = [];
  const loader = {
    copy: async (data: Buffer[]) => {
      const failure = failures.shift();
      if (failure) throw failure;
      loaded.push(...decodeAuditCopy(data).map((e) => e.requestId));
    },
  } as unknown as AuditLoader;
  return { writer: new AuditWriter(loader, loadConfig({})), loaded };
}

const sqlError = (code: string): DatabaseError => Object.assign(new DatabaseError('refused', 0, 'error'), { code });

describe('AuditWriter', () => {
  it('keeps a batch the database could not take and writes it, in order, at the next flush', async () => {
    const { writer, loaded } = writerFailingWith([Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })]);
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
});
