import Redis from 'ioredis';
import { Client } from 'pg';

/** Drops the run's database, deletes the run's Redis keys and stops the embedded PostgreSQL if the set-up started one. */
export default async function globalTeardown(): Promise<void> {
  const adminUrl = process.env.TEST_ADMIN_DATABASE_URL;
  const database = process.env.TEST_DATABASE_NAME;
  if (adminUrl && database && !process.env.TEST_KEEP_DATABASE) {
    const admin = new Client({ connectionString: adminUrl });
    await admin.connect();
    const workers = Number(process.env.TEST_WORKER_DATABASES ?? 0);
    for (let worker = 1; worker <= workers; worker++) await admin.query(`DROP DATABASE IF EXISTS ${database}_w${worker} WITH (FORCE)`);
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  }
  const prefix = process.env.REDIS_PREFIX;
  if (process.env.REDIS_URL && prefix) {
    const redis = new Redis(process.env.REDIS_URL);
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
    redis.disconnect();
  }
  await (globalThis as { stopEmbeddedPostgres?: () => Promise<void> }).stopEmbeddedPostgres?.();
}
