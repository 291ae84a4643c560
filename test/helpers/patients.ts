import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { client } from './app';
import type { PatientDto } from '../../src/modules/patients';
import type { BulkImportJobDto } from '../../src/modules/patients/dto/bulk-import.dto';

/** Rate limits off: these suites send far more than a test key's 10 requests per second. */
export const NO_RATE_LIMITS: Record<string, string> = {
  RATE_LIMIT_TEST_PER_SECOND: '0',
  RATE_LIMIT_TEST_PER_HOUR: '0',
  RATE_LIMIT_TEST_PER_DAY: '0',
  RATE_LIMIT_LIVE_PER_SECOND: '0',
  RATE_LIMIT_LIVE_PER_HOUR: '0',
  RATE_LIMIT_LIVE_PER_DAY: '0',
};

export const PATIENTS = '/api/v1/patients';

let counter = 0;

/** Creates a patient through the API and answers its body; fails the test on anything but 201. */
export async function createPatient(app: NestFastifyApplication, key: string, body: Record<string, unknown> = {}): Promise<PatientDto> {
  const n = ++counter;
  const res = await client(app, key).post<PatientDto>(PATIENTS, { firstName: `First${n}`, lastName: `Last${n}`, ...body });
  if (res.status !== 201) throw new Error(`patient creation failed: ${res.status} ${res.text}`);
  return res.body;
}

/** Polls an import until it is completed or failed (or the deadline passes). */
export async function waitForImport(
  app: NestFastifyApplication,
  key: string,
  jobId: string,
  timeoutMs = 20_000,
): Promise<BulkImportJobDto> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await client(app, key).get<BulkImportJobDto>(`${PATIENTS}/bulk-import/${jobId}`);

    if (res.status !== 200) throw new Error(`import status failed: ${res.status} ${res.text}`);
    if (res.body.status === 'completed' || res.body.status === 'failed') return res.body;
    if (Date.now() > deadline) throw new Error(`import ${jobId} still ${res.body.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
