// Reminder lateness: 1,000 reminders due at the same instant, sent by one worker. The built API runs without
// workers (PORT=41030) and books 500 appointments at one time with 500 providers, each of a type with two
// reminders an hour before (an email and a text, the most one offset allows; test mode, so texts take the test
// transport and emails the log transport). Then one dist/worker.js starts with its clock set to LEAD_S seconds before they fall
// due, so it is up and idle by then. Lateness is each reminder's settlement time minus its sendAt, both on
// the worker's clock; reports p50/p99/max, the time to the last, the worker's CPU per reminder, and checks
// that every reminder ended `sent` with exactly one message of its own.
// Needs `npm run build` first, PostgreSQL on 127.0.0.1:5432 and Redis on 127.0.0.1:6379. Creates and drops
// its own database (bench/lib.mjs). Usage: node bench/reminders.mjs [appointments=500]
import { loadavg } from 'node:os';
import { cpuMs, log, waitFor, withBench } from './lib.mjs';

const APPOINTMENTS = Number(process.argv[2] ?? 500);
const RULES = 2;
const COUNT = APPOINTMENTS * RULES;
const CONCURRENCY = 10;
const PORT = 41030;
/** How long before the reminders fall due the worker starts (its start-up must fit). */
const LEAD_S = 40;
const DAY = 86_400_000;

await withBench('reminders', { PORT: String(PORT) }, async (bench) => {
  bench.migrate();
  const { keys } = bench.createTenant();
  const headers = { authorization: `Bearer ${keys.test}`, 'content-type': 'application/json' };
  const base = `http://127.0.0.1:${PORT}/api/v1`;
  const call = async (method, path, body, expected = [200, 201]) => {
    const res = await fetch(`${base}${path}`, { method, headers, body: body && JSON.stringify(body) });
    if (!expected.includes(res.status)) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  bench.start('dist/main.js', { WORKERS: 'off' });
  await waitFor(`http://127.0.0.1:${PORT}/health/ready`, 120_000);

  const email = await call('POST', '/emails/templates', {
    name: 'Reminder',
    subject: 'See you at {{appointment.localTime}}',
    textContent: 'Hi {{patient.firstName}}, {{appointment.typeName}} with {{appointment.providerName}} on {{appointment.localDate}}.',
  });
  const sms = await call('POST', '/sms/templates', { name: 'Reminder', body: '{{practice.name}}: {{appointment.localDate}} {{appointment.localTime}}' });
  const rule = (channel, templateId) => ({ offsetMinutes: 60, channel, templateId });
  const type = await call('POST', '/scheduling/appointment-types', {
    name: 'Visit',
    durationMinutes: 30,
    reminders: [rule('email', email.id), rule('sms', sms.id)],
  });
  const patient = await call('POST', '/patients', { firstName: 'Bench', lastName: 'Patient', email: 'bench@example.com', phone: '+12025550100' });
  // 15:00 UTC ten days ahead: the texts (due 14:00 in each provider's UTC) are outside quiet hours.
  const start = Math.floor(Date.now() / DAY) * DAY + 10 * DAY + 15 * 3_600_000;
  const dueAt = start - 3_600_000;
  const everyDay = [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start: '00:00', end: '24:00' }));

  let next = 0;
  const bookedAt = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < APPOINTMENTS) {
        const n = next++;
        const provider = await call('POST', '/scheduling/providers', { name: `Dr. Bench ${n}`, timezone: 'UTC', workingHours: everyDay });
        await call('POST', '/scheduling/book', {
          patientId: patient.id,
          providerId: provider.id,
          appointmentTypeId: type.id,
          datetime: new Date(start).toISOString(),
        });
      }
    }),
  );
  log(`booked ${APPOINTMENTS} appointments (${COUNT} reminders) in ${((performance.now() - bookedAt) / 1000).toFixed(1)} s`);

  const db = await bench.sql();
  const count = async (where) => (await db.query(`SELECT count(*)::int AS n FROM appointment_reminders WHERE ${where}`)).rows[0].n;
  if ((await count(`status = 'scheduled' AND send_at = '${new Date(dueAt).toISOString()}'`)) !== COUNT) throw new Error('not every reminder is planned');

  // The worker's clock: LEAD_S seconds before the reminders fall due, moving on from there.
  const load = loadavg()[0];
  const worker = bench.start('dist/worker.js', { CLOCK_OFFSET_MS: String(dueAt - LEAD_S * 1000 - Date.now()) });
  const dueWall = performance.now() + LEAD_S * 1000;
  await waitFor(async () => (await count(`status = 'scheduled'`)) === 0 || performance.now() > dueWall, 180_000, 'the due time');
  const cpuAtDue = cpuMs(worker.pid);
  await waitFor(async () => (await count(`status = 'scheduled'`)) === 0, 180_000, `${COUNT} reminders settled`);
  const lastAfter = (performance.now() - dueWall) / 1000;
  const cpuPerReminder = (cpuMs(worker.pid) - cpuAtDue) / COUNT;

  const late = (await db.query(`SELECT extract(epoch FROM updated_at - send_at) * 1000 AS ms FROM appointment_reminders ORDER BY 1`)).rows.map(
    (r) => Number(r.ms),
  );
  const pct = (p) => late[Math.min(late.length - 1, Math.floor((p / 100) * late.length))];
  const statuses = (await db.query(`SELECT status, count(*)::int AS n FROM appointment_reminders GROUP BY status`)).rows;
  const messages = (
    await db.query(
      `SELECT (SELECT count(*) FROM email_messages)::int + (SELECT count(*) FROM sms_messages)::int AS n,
              (SELECT count(DISTINCT message_id) FROM appointment_reminders)::int AS named`,
    )
  ).rows[0];
  await db.end();
  console.log(
    `| ${COUNT} reminders due at one instant | one worker | lateness p50 **${(pct(50) / 1000).toFixed(2)} s**, p99 **${(pct(99) / 1000).toFixed(2)} s**, ` +
      `max ${(late[late.length - 1] / 1000).toFixed(2)} s; last settled ${lastAfter.toFixed(1)} s after the due time; worker CPU ${cpuPerReminder.toFixed(2)} ms a reminder ` +
      `| ${statuses.map((s) => `${s.status} ${s.n}`).join(', ')}; ${messages.n} messages, ${messages.named} named by a reminder | load ${load.toFixed(1)} |`,
  );
});
