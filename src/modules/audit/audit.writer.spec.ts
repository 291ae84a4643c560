import { DatabaseError } from 'pg';
import { loadConfig } from '../../config/app-config';
import type { AuditRepository } from './audit.repository';
import { AuditWriter } from './audit.writer';
import type { AuditEntryEntity } from './entities/audit-entry.entity';

const entry = (requestId: string): AuditEntryEntity => ({
  id: '0193a5b2-7c1d-7e4f-8a9b-0c1d2e3f4a5b',
  tenantId: '0193a5b2-7c1d-7e4f-8a9b-000000000001',
  mode: 'test',
  at: new Date(),
  apiKeyId: null,
  action: 'patient.read',
  resourceType: 'patient',
  resourceId: null,
  status: 200,
  requestId,
  ip: null,
});

/** The writer's retry policy, against a repository whose COPY fails as told (the real COPY: audit-log e2e). */
function writerFailingWith(failures: Error[]): { writer: AuditWriter; loaded: string[] } {
  const loaded: string[] = [];
  const repository = {
    copyIn: async (chunks: Buffer[]) => {
      const failure = failures.shift();
      if (failure) throw failure;
      for (const line of Buffer.concat(chunks).toString('utf8').trimEnd().split('\n')) loaded.push(line.split('\t')[9]);
    },
  } as unknown as AuditRepository;
  return { writer: new AuditWriter(repository, loadConfig({})), loaded };
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
