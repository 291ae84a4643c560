import { Client } from 'pg';
import twilio from 'twilio';
import { call, createTenant } from '../helpers/app';
import { runCli } from '../helpers/cli';
import type { MeDto } from '../../src/modules/api-keys/dto/me.dto';
import type { SettingsDto } from '../../src/modules/settings/dto/settings.dto';
import type { AppointmentTypeListDto } from '../../src/modules/scheduling/appointment-types/dto/appointment-type.dto';
import type { ProviderListDto } from '../../src/modules/scheduling/providers/dto/provider.dto';
import type { SmsTemplateListDto } from '../../src/modules/sms/dto/sms-template.dto';
import { useApp } from '../helpers/use-app';
import { eventually } from '../helpers/eventually';
import { FakeTwilio } from '../helpers/fake-twilio';
import { createPatient } from '../helpers/patients';
import type { PatientDto } from '../../src/modules/patients';
import type { SmsMessageDto, SmsSendAcceptedDto } from '../../src/modules/sms/dto/sms-message.dto';

/** What tenants:create and keys:create print. */
interface PrintedKeys {
  tenant: { id: string; name: string };
  apiKeys: { id: string; mode: string; role: string; key: string }[];
}

/** What seed:demo --json prints, as far as these tests read it. */
interface PrintedSeed {
  seeded: { settingsFilled: Record<string, string[]>; patients: { created: number } };
  ids: Record<string, string[]>;
  bookingUrl: string;
  manageUrl: string;
}

/** The operator CLI, run as operators run it: `node dist/cli.js …` in a child process. */
describe('CLI (dist/cli.js)', () => {
  const suite = useApp();

  describe('keys:create', () => {
    it('issues an OWNER key of the mode asked for, printing one JSON object like tenants:create and nothing else', async () => {
      const run = await runCli(['keys:create', '--tenant', suite.tenant.id, '--mode', 'live']);
      expect(run.code).toBe(0);
      const lines = run.stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      const printed = JSON.parse(lines[0]) as PrintedKeys;
      expect(printed).toEqual({
        tenant: { id: suite.tenant.id, name: suite.tenant.name },
        apiKeys: [{ id: expect.any(String), mode: 'live', role: 'OWNER', key: expect.stringMatching(/^sk_live_[A-Za-z0-9]{32,}$/) }],
      });
      const me = await suite.api(printed.apiKeys[0].key).get<MeDto>('/api/v1/me');
      expect(me.status).toBe(200);
      expect(me.body.tenant).toEqual({ id: suite.tenant.id, name: suite.tenant.name });
      expect(me.body.key).toMatchObject({ id: printed.apiKeys[0].id, mode: 'live', role: 'OWNER', scopes: null });
    });

    it('takes --role', async () => {
      const run = await runCli(['keys:create', '--tenant', suite.tenant.id, '--mode', 'test', '--role', 'STAFF']);
      expect(run.code).toBe(0);
      const key = (JSON.parse(run.stdout) as PrintedKeys).apiKeys[0];
      expect(key).toMatchObject({ mode: 'test', role: 'STAFF', key: expect.stringMatching(/^sk_test_/) });
      expect((await suite.api(key.key).get<MeDto>('/api/v1/me')).body.key.role).toBe('STAFF');
    });

    it.each([
      [
        'an unknown tenant',
        ['--tenant', '00000000-0000-4000-8000-000000000000', '--mode', 'test'],
        'error: no tenant 00000000-0000-4000-8000-000000000000',
      ],
      ['a malformed tenant id', ['--tenant', 'acme', '--mode', 'test'], 'error: no tenant acme'],
      ['a bad mode', ['--tenant', '00000000-0000-4000-8000-000000000000', '--mode', 'prod'], 'error: --mode must be test or live'],
      ['no mode', ['--tenant', '00000000-0000-4000-8000-000000000000'], 'error: --mode must be test or live'],
      [
        'a bad role',
        ['--tenant', '00000000-0000-4000-8000-000000000000', '--mode', 'test', '--role', 'ROOT'],
        'error: --role must be OWNER, ADMIN or STAFF',
      ],
      ['no tenant', ['--mode', 'test'], 'error: --tenant is required'],
    ])('refuses %s with one line on stderr, nothing on stdout and a non-zero exit', async (_case, args, line) => {
      const run = await runCli(['keys:create', ...args]);
      expect(run.code).not.toBe(0);
      expect(run.stdout).toBe('');
      expect(run.stderr.trimEnd()).toBe(line);
    });
  });

  describe('sms-numbers', () => {
    const fake = new FakeTwilio();
    const PUBLIC_URL = 'https://api.clinic.test';
    const INBOUND = '/api/v1/public/sms/twilio/inbound';
    beforeAll(async () => {
      await fake.start();
    });
    const sms = useApp(() => ({ ...fake.env('+15005550006'), PUBLIC_URL, REDIS_PREFIX: `${process.env.REDIS_PREFIX}:cli-sms` }));
    afterAll(async () => {
      await fake.stop();
    });

    it('assigns a number to one tenant per mode: texts leave from it and its replies reach that tenant alone', async () => {
      const number = '+15005550101';
      const assign = (tenant: string) => runCli(['sms-numbers:assign', '--tenant', tenant, '--mode', 'live', '--number', number]);
      const first = await assign(sms.tenant.id);
      expect(first).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(first.stdout)).toEqual({ tenantId: sms.tenant.id, mode: 'live', number });
      // Again: the same answer, nothing changed.
      expect(await assign(sms.tenant.id)).toEqual(first);
      const other = await createTenant(sms.app);
      const taken = await assign(other.id);
      expect(taken.code).not.toBe(0);
      expect(taken.stdout).toBe('');
      expect(taken.stderr.trimEnd()).toBe(
        `error: ${number} is assigned to another tenant in live mode (sms-numbers:unassign it there first)`,
      );
      for (const bad of ['not a number', '15005550101']) {
        const run = await runCli(['sms-numbers:assign', '--tenant', other.id, '--mode', 'live', '--number', bad]);
        expect([run.code, run.stderr.trimEnd()]).toEqual([2, 'error: --number must be an E.164 number (+ and 7 to 15 digits)']);
      }
      const listed = await runCli(['sms-numbers:list', '--tenant', sms.tenant.id]);
      expect(JSON.parse(listed.stdout)).toEqual({ numbers: [{ tenantId: sms.tenant.id, mode: 'live', number }] });

      const api = sms.api(sms.tenant.liveKey);
      expect((await api.get<SettingsDto>('/api/v1/settings/practice')).body.settings).toEqual({ smsFromNumber: number });
      expect((await sms.api(other.liveKey).get<SettingsDto>('/api/v1/settings/practice')).body.settings).toEqual({});
      const phone = '+12025559001';
      const sent = await api.post<SmsSendAcceptedDto>('/api/v1/sms/send', { to: phone, body: 'From our number' });
      await eventually(async () => {
        expect((await api.get<SmsMessageDto>(`/api/v1/sms/messages/${sent.body.messageId}`)).body.status).toBe('sent');
      });
      expect(fake.to(phone).map((m) => m.fields.From)).toEqual([number]);

      // A STOP to the number opts out its tenant's patient, not another tenant's with the same phone.
      const ours = await createPatient(sms.app, sms.tenant.liveKey, { phone });
      const theirs = await createPatient(sms.app, other.liveKey, { phone });
      const fields = { From: phone, To: number, Body: 'STOP' };
      const stop = await call(sms.app, 'POST', INBOUND, {
        rawBody: new URLSearchParams(fields).toString(),
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-twilio-signature': twilio.getExpectedTwilioSignature(fake.authToken, `${PUBLIC_URL}${INBOUND}`, fields),
        },
      });
      expect(stop.status).toBe(200);
      expect((await api.get<PatientDto>(`/api/v1/patients/${ours.id}`)).body.smsOptOut).toBe(true);
      expect((await sms.api(other.liveKey).get<PatientDto>(`/api/v1/patients/${theirs.id}`)).body.smsOptOut).toBe(false);

      const unassigned = await runCli(['sms-numbers:unassign', '--tenant', sms.tenant.id, '--mode', 'live']);
      expect(JSON.parse(unassigned.stdout)).toEqual({ tenantId: sms.tenant.id, mode: 'live', number });
      expect((await assign(other.id)).code).toBe(0);
    }, 120_000); // seven cold CLI starts
  });

  describe('migrations:run', () => {
    const admin = (): Client => new Client({ connectionString: process.env.TEST_ADMIN_DATABASE_URL });
    const database = `${process.env.TEST_DATABASE_NAME}_cli`;
    const url = (): string => {
      const u = new URL(process.env.DATABASE_URL!);
      u.pathname = `/${database}`;
      return u.toString();
    };

    beforeAll(async () => {
      const c = admin();
      await c.connect();
      await c.query(`CREATE DATABASE ${database}`);
      await c.end();
    });
    afterAll(async () => {
      const c = admin();
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await c.end();
    });

    it('migrates an empty database even with MIGRATIONS_RUN=false, and applies nothing the second time', async () => {
      const first = await runCli(['migrations:run'], { DATABASE_URL: url(), MIGRATIONS_RUN: 'false' });
      expect(first.code).toBe(0);
      const applied = (JSON.parse(first.stdout) as { migrated: string[] }).migrated;
      expect(applied).toEqual(expect.arrayContaining(['Foundation1763700000000', 'Patients1763800000000']));

      const db = new Client({ connectionString: url() });
      await db.connect();
      try {
        const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM migrations`);
        expect(rows[0].n).toBe(applied.length);
        await expect(db.query('SELECT 1 FROM patients LIMIT 1')).resolves.toBeDefined();
      } finally {
        await db.end();
      }

      const again = await runCli(['migrations:run'], { DATABASE_URL: url(), MIGRATIONS_RUN: 'false' });
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toEqual({ migrated: [] });
    }, 120_000); // two cold CLI starts and every migration: over 30 s when the shared machine is busy
  });

  describe('help', () => {
    const COMMANDS = [
      'tenants:create',
      'keys:create',
      'seed:demo',
      'sms-numbers:assign',
      'sms-numbers:unassign',
      'sms-numbers:list',
      'migrations:run',
    ];

    it.each(['--help', 'help', '-h'])('`%s` prints the usage of every command on stdout and exits 0', async (flag) => {
      const run = await runCli([flag]);
      expect(run).toMatchObject({ code: 0, stderr: '' });
      for (const command of COMMANDS) expect(run.stdout).toMatch(new RegExp(`^  node dist/cli\\.js ${command}\\b.*\\n {6}\\S`, 'm'));
    });

    it.each(COMMANDS)("`%s --help` prints that command's usage and runs nothing", async (command) => {
      // No tenant, no database: it would fail if it ran.
      const run = await runCli([command, '--help'], { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(run.stdout).toContain(`node dist/cli.js ${command}`);
      for (const other of COMMANDS.filter((c) => c !== command)) expect(run.stdout).not.toContain(`node dist/cli.js ${other}`);
    });
  });

  describe('seed:demo', () => {
    let origin: string;

    // On a port of its own: the summary's links are fetched as a person would, at PUBLIC_URL.
    beforeAll(async () => {
      await suite.app.listen({ port: 0, host: '127.0.0.1' });
      origin = await suite.app.getUrl();
    });

    it('prints a short summary whose booking page and manage link answer, and a call to try', async () => {
      const own = await createTenant(suite.app);
      const run = await runCli(['seed:demo', '--tenant', own.id], { PUBLIC_URL: origin });
      expect(run.code).toBe(0);
      const lines = run.stdout.trimEnd().split('\n');
      expect(lines.length).toBeLessThanOrEqual(30);
      expect(run.stdout).not.toMatch(/^\s*[{[]/m);

      const escaped = origin.replace(/[.]/g, '\\.');
      const bookingUrl = new RegExp(`${escaped}/api/v1/public/schedulers/[0-9a-f-]{36}(?=\\s|$)`, 'm').exec(run.stdout)?.[0];
      const manageUrl = new RegExp(`${escaped}/api/v1/public/appointments/[\\w.-]+(?=\\s|$)`, 'm').exec(run.stdout)?.[0];
      expect({ bookingUrl, manageUrl }).toEqual({ bookingUrl: expect.any(String), manageUrl: expect.any(String) });
      for (const url of [bookingUrl!, manageUrl!]) expect([url, (await fetch(url)).status]).toEqual([url, 200]);

      // The ids a first call needs, with the names that tell them apart.
      const api = suite.api(own.testKey);
      const types = (await api.get<AppointmentTypeListDto>('/api/v1/scheduling/appointment-types')).body.appointmentTypes;
      const providers = (await api.get<ProviderListDto>('/api/v1/scheduling/providers')).body.providers;
      for (const record of [...types, ...providers]) expect(run.stdout).toMatch(new RegExp(`${record.name}.*${record.id}`));
      // The call to try runs as printed (the keyed one with the tenant's key).
      const authorization = `Bearer ${own.testKey}`;
      const curls = [...run.stdout.matchAll(/curl -s "([^"]+)"/g)].map(([, url]) => url);
      const availability = curls.filter((url) => url.includes('/availability?'));
      expect(availability).toHaveLength(2);
      for (const url of availability) {
        const res = await fetch(url, { headers: { authorization } });
        expect([url, res.status]).toEqual([url, 200]);
        expect(((await res.json()) as { slots: unknown[] }).slots.length).toBeGreaterThan(0);
      }
      // The test clock's flow as printed: past the demo appointment's next reminder, whose message then shows.
      const advance = /curl -s -X POST "([^"]+)".* -d '([^']+)'/.exec(run.stdout);
      expect(advance?.[1]).toBe(`${origin}/api/v1/test-helpers/clock/advance`);
      const moved = await fetch(advance![1], {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: advance![2],
      });
      expect([moved.status, ((await moved.json()) as { ran: { reminders: number } }).ran.reminders]).toEqual([200, expect.any(Number)]);
      const messages = curls.filter((url) => url.includes('/messages?appointmentId='));
      expect(messages).toHaveLength(1);
      const listed = (await (await fetch(messages[0], { headers: { authorization } })).json()) as { messages: { kind: string }[] };
      expect(listed.messages.map((m) => m.kind)).toContain('reminder');
    }, 300_000);

    it('keeps the practice settings already set, fills the rest, and prints the ids of what it made with --json', async () => {
      const own = await createTenant(suite.app);
      const api = suite.api(own.testKey);
      expect((await api.post('/api/v1/settings/practice', { name: 'Harbour Physio', timezone: 'America/Chicago' })).status).toBe(200);
      expect((await api.post('/api/v1/settings/brand', { primaryColor: '#112233' })).status).toBe(200);

      const run = await runCli(['seed:demo', '--tenant', own.id, '--json'], { PUBLIC_URL: origin });
      expect(run.code).toBe(0);
      const lines = run.stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      const printed = JSON.parse(lines[0]) as PrintedSeed;
      expect(printed.bookingUrl).toBe(`${origin}/api/v1/public/schedulers/${printed.ids.schedulers[0]}`);
      expect(printed.manageUrl).toMatch(`${origin}/api/v1/public/appointments/`);

      const practice = (await api.get<SettingsDto>('/api/v1/settings/practice')).body.settings;
      expect(practice).toMatchObject({ name: 'Harbour Physio', timezone: 'America/Chicago', phone: expect.any(String) });
      expect((await api.get<SettingsDto>('/api/v1/settings/brand')).body.settings).toMatchObject({
        primaryColor: '#112233',
        accentColor: expect.any(String),
      });
      expect(printed.seeded.settingsFilled.practice).not.toContain('name');
      expect(printed.seeded.settingsFilled.practice).toContain('phone');

      const ids = printed.ids;
      expect(ids.patients).toHaveLength(printed.seeded.patients.created);
      expect(ids.patients.length).toBeGreaterThan(0);
      const paths: string[] = [
        ...ids.patients.slice(0, 3).map((id) => `/api/v1/patients/${id}`),
        ...ids.forms.map((id) => `/api/v1/forms/${id}`),
        ...ids.providers.map((id) => `/api/v1/scheduling/providers/${id}`),
        ...ids.appointmentTypes.map((id) => `/api/v1/scheduling/appointment-types/${id}`),
        ...ids.appointments.slice(0, 3).map((id) => `/api/v1/scheduling/appointments/${id}`),
        ...ids.schedulers.map((id) => `/api/v1/schedulers/${id}`),
        ...ids.emailTemplates.map((id) => `/api/v1/emails/templates/${id}`),
        ...ids.emailSequences.map((id) => `/api/v1/emails/sequences/${id}`),
      ];
      expect(ids.appointmentTypes).toHaveLength(2);
      for (const key of [
        'forms',
        'providers',
        'appointmentTypes',
        'appointments',
        'schedulers',
        'emailTemplates',
        'smsTemplates',
        'emailSequences',
      ]) {
        expect([key, ids[key].length > 0]).toEqual([key, true]);
      }
      for (const path of paths) expect([path, (await api.get(path)).status]).toEqual([path, 200]);
      const sms = (await api.get<SmsTemplateListDto>('/api/v1/sms/templates?limit=100')).body.templates.map((t) => t.id);
      expect(sms).toEqual(expect.arrayContaining(ids.smsTemplates));

      // A second run keeps everything and adds nothing, yet still names the demo records.
      const again = JSON.parse((await runCli(['seed:demo', '--tenant', own.id, '--json'])).stdout) as PrintedSeed;
      expect(again.seeded.settingsFilled).toEqual({ practice: [], brand: [], portal: [] });
      expect(again.seeded.patients.created).toBe(0);
      expect(again.ids.patients).toEqual(ids.patients);
      expect((await api.get<SettingsDto>('/api/v1/settings/practice')).body.settings).toEqual(practice);
    }, 300_000);
  });
});
