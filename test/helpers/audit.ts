import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AuditWriter } from '../../src/modules/audit/audit.writer';
import { client } from './app';
import type { AuditEntryDto } from '../../src/modules/audit/dto/audit-entry.dto';
import { eventually } from './eventually';

/**
 * The audit-log entries matching `query` (GET /settings/audit-log, newest first) once there are exactly
 * `expected` of them: the buffered writer is flushed and the log read again until then.
 */
export async function auditEntries(app: NestFastifyApplication, key: string, query: string, expected: number): Promise<AuditEntryDto[]> {
  return eventually(async () => {
    await app.get(AuditWriter).flush();
    const res = await client(app, key).get<{ entries: AuditEntryDto[] }>(`/api/v1/settings/audit-log?${query}`);
    expect(res.body.entries).toHaveLength(expected);
    return res.body.entries;
  });
}
