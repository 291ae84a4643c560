// Each Jest worker runs its suites on a database and a Redis key prefix of its own (copies the global
// set-up made), so that suites in different workers never see each other's rows, jobs or periodic work.
// Set from the run's values each time (a worker runs many suites): `TEST_RUN_*` keep those.
const worker = process.env.JEST_WORKER_ID ?? '1';
process.env.TEST_RUN_DATABASE_NAME ??= process.env.TEST_DATABASE_NAME;
process.env.TEST_RUN_REDIS_PREFIX ??= process.env.REDIS_PREFIX;
if (process.env.TEST_WORKER_DATABASES && process.env.TEST_RUN_DATABASE_NAME) {
  const database = `${process.env.TEST_RUN_DATABASE_NAME}_w${worker}`;
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${database}`;
  process.env.TEST_DATABASE_NAME = database;
  process.env.DATABASE_URL = url.toString();
  process.env.REDIS_PREFIX = `${process.env.TEST_RUN_REDIS_PREFIX}:w${worker}`;
}
