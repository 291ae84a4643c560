// Recurring series benchmark: POST /scheduling/series with 52 weekly occurrences of an appointment type with
// buffers, a daily cap and an email reminder, on a provider that already has 300 appointments over the year,
// each series at an hour of its own; then the same as a dry run. Target: a series of 52 books in under 1 s.
// Needs `npm run build` first, PostgreSQL on 127.0.0.1:5432 and Redis on 127.0.0.1:6379. Creates and drops its
// own database. Usage: node bench/series.mjs [runs=5]
import { loadavg } from 'node:os';
import { log, median, waitFor, withBench } from './lib.mjs';

const RUNS = Number(process.argv[2] ?? 5);
const API_PORT = 41231; // the scheduling range of the shared machine
const API = `http://127.0.0.1:${API_PORT}/api/v1`;
const OCCURRENCES = 52;
const EXISTING = 300;
const TARGET_MS = 1000;
const DAY = 86_400_000;
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

await withBench('series', { PORT: String(API_PORT) }, async (bench) => {
  bench.migrate();
  const { keys } = bench.createTenant();
  const headers = { authorization: `Bearer ${keys.live}`, 'content-type': 'application/json' };
  const post = async (path, body, status = 201) => {
    const res = await fetch(`${API}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (res.status !== status) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  bench.start('dist/main.js');
  await waitFor(`http://127.0.0.1:${API_PORT}/health/ready`);

  const patient = await post('/patients', { firstName: 'Bench', lastName: 'Series', email: 'series@bench.example' });
  const template = await post('/emails/templates', {
    name: 'Reminder',
    subject: 'See you soon',
    textContent: 'Hello {{patient.firstName}}',
  });
  const type = await post('/scheduling/appointment-types', {
    name: 'Weekly therapy',
    durationMinutes: 45,
    bufferBeforeMinutes: 5,
    bufferAfterMinutes: 10,
    maxPerDayPerProvider: 12,
    reminders: [{ offsetMinutes: 1440, channel: 'email', templateId: template.id }],
  });
  const provider = await post('/scheduling/providers', {
    name: 'Dr. Weekly',
    timezone: 'America/New_York',
    workingHours: [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start: '06:00', end: '22:00' })),
  });
  // Existing appointments over the coming year at 06:00 local, a day apart, so that each occurrence's checks
  // read a schedule with neighbours (buffers, the daily cap) without meeting them.
  const day0 = Math.ceil(Date.now() / DAY) * DAY + 2 * DAY;
  for (let i = 0; i < EXISTING; i += 10) {
    await Promise.all(
      Array.from({ length: 10 }, (_, j) => {
        const at = new Date(day0 + (i + j) * DAY).toISOString().slice(0, 10);
        return post('/scheduling/book', {
          patientId: patient.id,
          providerId: provider.id,
          appointmentTypeId: type.id,
          datetime: new Date(`${at}T11:00:00Z`).toISOString(),
          overridePolicies: true,
        });
      }),
    );
  }
  const firstDay = new Date(day0 + DAY).toISOString().slice(0, 10);
  const series = (hour, query = '', status = 201) =>
    post(
      `/scheduling/series${query}`,
      {
        patientId: patient.id,
        providerId: provider.id,
        appointmentTypeId: type.id,
        start: `${firstDay}T${String(hour).padStart(2, '0')}:00`,
        rrule: `FREQ=WEEKLY;COUNT=${OCCURRENCES}`,
      },
      status,
    );

  await series(8, '?dryRun=true', 200); // warm-up, writes nothing
  const loadBefore = load();
  const booked = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const created = await series(9 + 2 * i);
    booked.push(performance.now() - t0);
    const n = created.occurrences.filter((o) => o.status === 'scheduled').length;
    if (n !== OCCURRENCES) throw new Error(`series ${i}: ${n} of ${OCCURRENCES} booked`);
  }
  const dry = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await series(10 + 2 * i, '?dryRun=true', 200);
    dry.push(performance.now() - t0);
  }
  const db = await bench.sql();
  const [{ reminders }] = (
    await db.query(
      `SELECT count(*)::int AS reminders FROM appointment_reminders r JOIN appointments a ON a.id = r.appointment_id WHERE a.series_id IS NOT NULL`,
    )
  ).rows;
  await db.end();
  const ms = (xs) => `${median(xs).toFixed(0)} / ${Math.max(...xs).toFixed(0)}`;
  log(`series of ${OCCURRENCES}: median ${median(booked).toFixed(0)} ms, max ${Math.max(...booked).toFixed(0)} ms; dry run ${ms(dry)} ms`);
  const ok = Math.max(...booked) < TARGET_MS;
  const lines = [
    `POST /scheduling/series, ${OCCURRENCES} weekly occurrences of a type with 5 + 10 minutes of buffers, a cap of 12 a day and an email reminder, on a provider (America/New_York) with ${EXISTING} appointments over the year; ${RUNS} series one after another, each at its own hour (all ${OCCURRENCES} booked, ${reminders} reminders planned):`,
    '',
    '| Request | median ms | max ms | target | load before |',
    '|---|---:|---:|---:|---|',
    `| create (201) | ${median(booked).toFixed(0)} | ${Math.max(...booked).toFixed(0)} | < ${TARGET_MS} | ${loadBefore} |`,
    `| ?dryRun=true (200, rolled back) | ${median(dry).toFixed(0)} | ${Math.max(...dry).toFixed(0)} | — | |`,
    '',
    ok
      ? `Every series of ${OCCURRENCES} booked in under ${TARGET_MS} ms.`
      : `OVER TARGET: a series took ${Math.max(...booked).toFixed(0)} ms.`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (!ok) process.exitCode = 1;
});
