import { ConfigError, loadConfig } from './app-config';

describe('loadConfig', () => {
  it('has working defaults with nothing set', () => {
    const config = loadConfig({});
    expect(config.http).toEqual({
      host: '127.0.0.1',
      port: 3000,
      publicUrl: 'http://127.0.0.1:3000',
      publicUrlSet: false,
      corsOrigins: [],
      trustProxy: false,
    });
    expect(config.database.url).toBeUndefined();
    expect(config.workers.enabled).toBe(true);
    expect(config.rateLimits.test).toEqual([
      { name: 'second', seconds: 1, limit: 10 },
      { name: 'hour', seconds: 3600, limit: 100 },
      { name: 'day', seconds: 86400, limit: 1000 },
    ]);
    // live: no daily limit by default
    expect(config.rateLimits.live.map((w) => w.name)).toEqual(['second', 'hour']);
    expect(config.retention).toEqual({ auditMonths: 72, eventsDays: 30, emailBodyDays: 30 });
    expect(loadConfig({ AUDIT_RETENTION_MONTHS: '84', EVENTS_RETENTION_DAYS: '7' }).retention).toMatchObject({
      auditMonths: 84,
      eventsDays: 7,
    });
  });

  it('names statements unless behind a transaction pooler, and migrates over the direct URL when there is one', () => {
    const pooled = 'postgres://app@pgbouncer:6432/pm';
    expect(loadConfig({ DATABASE_URL: pooled }).database.namedStatements).toBe(true);
    expect(loadConfig({ DATABASE_URL: pooled }).migrationsUrl).toBe(pooled);
    const behind = loadConfig({ DATABASE_URL: pooled, DATABASE_POOLER: 'transaction', DATABASE_DIRECT_URL: 'postgres://app@db:5432/pm' });
    expect([behind.database.namedStatements, behind.migrationsUrl]).toEqual([false, 'postgres://app@db:5432/pm']);
  });

  it('reads from no replica unless DATABASE_READ_URLS names some, and skips one 5 s behind by default', () => {
    expect(loadConfig({}).database).toMatchObject({ readUrls: [], readMaxLagMs: 5000 });
    const replicas = loadConfig({
      DATABASE_READ_URLS: 'postgres://app@replica-1:5432/pm, postgresql://app@replica-2:5432/pm',
      DATABASE_READ_MAX_LAG_MS: '300',
    });
    expect(replicas.database).toMatchObject({
      readUrls: ['postgres://app@replica-1:5432/pm', 'postgresql://app@replica-2:5432/pm'],
      readMaxLagMs: 300,
    });
  });

  it.each([
    ['DATABASE_POOLER', 'session', /DATABASE_POOLER/],
    ['DATABASE_DIRECT_URL', 'db:5432', /DATABASE_DIRECT_URL must be a postgres:\/\/ URL/],
    ['PORT', 'eighty', /PORT must be an integer/],
    ['PORT', '70000', /PORT/],
    ['DATABASE_URL', 'mysql://x', /DATABASE_URL must be a postgres:\/\/ URL/],
    ['DATABASE_READ_URLS', 'postgres://app@replica-1/pm,replica-2:5432', /DATABASE_READ_URLS must be comma-separated postgres:\/\/ URLs/],
    ['DATABASE_READ_URLS', 'postgres://app@replica-1/pm,', /DATABASE_READ_URLS/],
    ['DATABASE_READ_MAX_LAG_MS', '5s', /DATABASE_READ_MAX_LAG_MS must be an integer/],
    ['DATABASE_READ_MAX_LAG_MS', '-1', /DATABASE_READ_MAX_LAG_MS/],
    ['REDIS_URL', 'localhost:6379', /REDIS_URL must be a redis:\/\/ URL/],
    ['REDIS_CLUSTER_NODES', 'redis://10.0.0.1:7000', /REDIS_CLUSTER_NODES must be comma-separated host:port pairs/],
    ['REDIS_CLUSTER_NODES', '10.0.0.1:7000,10.0.0.2', /REDIS_CLUSTER_NODES/],
    ['REDIS_CLUSTER_NODES', '10.0.0.1:70000', /REDIS_CLUSTER_NODES/],
    ['WORKERS', 'maybe', /WORKERS must be on or off/],
    ['LOG_LEVEL', 'loud', /LOG_LEVEL/],
    ['RATE_LIMIT_TEST_PER_HOUR', '-1', /RATE_LIMIT_TEST_PER_HOUR/],
    ['SMTP_URL', 'http://mail', /SMTP_URL/],
    ['HEAP_GROWING_PERCENT', 'half', /HEAP_GROWING_PERCENT must be an integer/],
    ['CLOCK_OFFSET_MS', '3 days', /CLOCK_OFFSET_MS must be an integer/],
    ['CORS_ORIGINS', 'portal.example.com', /CORS_ORIGINS must be comma-separated origins/],
    ['CORS_ORIGINS', 'https://portal.example.com/app', /CORS_ORIGINS must be comma-separated origins/],
    ['CORS_ORIGINS', 'https://portal.example.com:99999', /CORS_ORIGINS has an origin that is not a URL/],
    ['TRUST_PROXY', 'proxy.internal', /TRUST_PROXY must be true, false, a hop count/],
    ['TRUST_PROXY', '10.0.0.0/33', /TRUST_PROXY/],
    ['TRUST_PROXY', '10.0.0.1,', /TRUST_PROXY/],
    ['SMS_PROVIDER', 'nexmo', /SMS_PROVIDER must be log or twilio/],
    ['TWILIO_FROM', '5005550006', /TWILIO_FROM must be a phone number in E.164 form/],
    ['TWILIO_ACCOUNT_SID', 'AC123', /TWILIO_ACCOUNT_SID must be a Twilio account SID/],
    ['TWILIO_API_BASE_URL', 'localhost:4010', /TWILIO_API_BASE_URL must be an http\(s\) origin/],
    ['SMS_MAX_ATTEMPTS', '0', /SMS_MAX_ATTEMPTS/],
    ['AUDIT_RETENTION_MONTHS', '0', /AUDIT_RETENTION_MONTHS/],
    ['AUDIT_RETENTION_MONTHS', 'six years', /AUDIT_RETENTION_MONTHS must be an integer/],
    ['EVENTS_RETENTION_DAYS', '1', /EVENTS_RETENTION_DAYS/],
    ['EMAIL_BODY_RETENTION_DAYS', '-3', /EMAIL_BODY_RETENTION_DAYS/],
    ['PATIENT_ACCESS_LOG_ENABLED', 'sometimes', /PATIENT_ACCESS_LOG_ENABLED must be true or false/],
  ])('stops on an invalid %s with a message naming it', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });

  it.each([
    ['true', true],
    ['off', false],
    ['2', 2],
    ['127.0.0.1', ['127.0.0.1']],
    ['10.0.0.0/8, ::1, fd00::/8,loopback', ['10.0.0.0/8', '::1', 'fd00::/8', 'loopback']],
  ])('takes TRUST_PROXY=%s in the forms Fastify accepts', (value, trustProxy) => {
    expect(loadConfig({ TRUST_PROXY: value }).http.trustProxy).toEqual(trustProxy);
  });

  it('reads a Redis Cluster from its seed nodes, taking only credentials and TLS from REDIS_URL', () => {
    expect(loadConfig({}).redis.clusterNodes).toBeUndefined();
    const cluster = loadConfig({ REDIS_CLUSTER_NODES: ' 10.0.0.1:7000, redis-2.internal:7001,[::1]:7002' });
    expect(cluster.redis).toEqual({
      url: undefined,
      prefix: 'pm',
      clusterNodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: 'redis-2.internal', port: 7001 },
        { host: '::1', port: 7002 },
      ],
    });
    expect(loadConfig({ REDIS_CLUSTER_NODES: '10.0.0.1:7000', REDIS_URL: 'rediss://app:secret@ignored:6379/0' }).redis.url).toBe(
      'rediss://app:secret@ignored:6379/0',
    );
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: '10.0.0.1:7000', REDIS_URL: 'redis://10.0.0.1:7000/2' })).toThrow(
      'REDIS_URL names a database, but a Redis Cluster has only database 0',
    );
  });

  it('needs the Twilio account, token and sender with SMS_PROVIDER=twilio, and never repeats the token', () => {
    const twilio = {
      SMS_PROVIDER: 'twilio',
      TWILIO_ACCOUNT_SID: `AC${'0'.repeat(32)}`,
      TWILIO_AUTH_TOKEN: 'secret-token-1234',
      TWILIO_FROM: '+15005550006',
    };
    expect(() => loadConfig({ ...twilio, TWILIO_FROM: '' })).toThrow('TWILIO_FROM is required when SMS_PROVIDER=twilio');
    expect(() => loadConfig({ ...twilio, TWILIO_AUTH_TOKEN: 'short' })).toThrow(
      /^Invalid configuration: TWILIO_AUTH_TOKEN must be a Twilio auth token[^"]*$/,
    );
    expect(loadConfig(twilio).sms).toEqual({
      provider: 'twilio',
      twilio: { accountSid: twilio.TWILIO_ACCOUNT_SID, authToken: 'secret-token-1234', from: '+15005550006', apiBaseUrl: undefined },
      maxAttempts: 6,
      retryBaseMs: 5_000,
      timeoutMs: 10_000,
    });
    expect(loadConfig({}).sms.provider).toBe('log');
  });

  it('reads switches and numbers', () => {
    const config = loadConfig({
      WORKERS: 'off',
      MIGRATIONS_RUN: 'false',
      PORT: '8080',
      RATE_LIMIT_LIVE_PER_DAY: '5',
      RATE_LIMIT_LIVE_PER_SECOND: '0',
      CLOCK_OFFSET_MS: '-86400000',
    });
    expect(config.workers.enabled).toBe(false);
    expect(config.clock.offsetMs).toBe(-86_400_000);
    expect(config.database.migrationsRun).toBe(false);
    expect(config.http.port).toBe(8080);
    expect(loadConfig({ CORS_ORIGINS: 'https://Portal.Example.com:443/, http://localhost:5173' }).http.corsOrigins).toEqual([
      'https://portal.example.com',
      'http://localhost:5173',
    ]);
    expect(config.rateLimits.live).toEqual([
      { name: 'hour', seconds: 3600, limit: 10000 },
      { name: 'day', seconds: 86400, limit: 5 },
    ]);
  });
});
