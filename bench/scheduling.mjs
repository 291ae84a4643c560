// Scheduling benchmark: GET /scheduling/availability for one provider over 31 days with 500 existing
// appointments of an appointment type with buffers and a daily cap, without and with that type, then POST /scheduling/book with 32 connections competing for 50 slots (checked for double
// bookings in PostgreSQL afterwards). Needs `npm run build` first, PostgreSQL on 127.0.0.1:5432 and Redis
// on 127.0.0.1:6379. Creates and drops its own database. Usage: node bench/scheduling.mjs [seconds=10]
import { loadavg } from 'node:os';
import { cannon, log, waitFor, withBench } from './lib.mjs';

const SECONDS = Number(process.argv[2] ?? 10);
const API_PORT = 41201; // the scheduling range of the shared machine
const API = `http://127.0.0.1:${API_PORT}/api/v1`;
const APPOINTMENTS = 500;
const DAYS = 31;
const CONTESTED_SLOTS = 50;
const ATTEMPTS_PER_SLOT = 20;
const DAY = 86_400_000;
const MINUTE = 60_000;
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

await withBench('scheduling', { PORT: String(API_PORT) }, async (bench) => {
  bench.migrate();
  const { keys } = bench.createTenant();
  const headers = { authorization: `Bearer ${keys.live}`, 'content-type': 'application/json' };
  const post = async (path, body) => {
    const res = await fetch(`${API}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  bench.start('dist/main.js');
  await waitFor(`http://127.0.0.1:${API_PORT}/health/ready`);
  // Tomorrow 00:00 UTC onwards, so that nothing is in the past while the bench runs.
  const day0 = Math.ceil(Date.now() / DAY) * DAY;
  const dateOf = (ms) => new Date(ms).toISOString().slice(0, 10);
  const patient = await post('/patients', { firstName: 'Bench', lastName: 'Patient', email: 'bench@example.com' });

  // 1. One provider in New York, 06:00–22:00 every day: 31 × 32 half-hour slots, 500 of them booked (so that
  //    free slots remain between appointments widened by their buffers).
  const busy = await post('/scheduling/providers', {
    name: 'Dr. Busy',
    timezone: 'America/New_York',
    workingHours: [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start: '06:00', end: '22:00' })),
  });
  const range = `startDate=${dateOf(day0 + DAY)}&endDate=${dateOf(day0 + DAYS * DAY)}`;
  const free = await fetch(`${API}/scheduling/availability?providerId=${busy.id}&${range}&duration=30`, { headers }).then((r) => r.json());
  const halfHours = free.slots.filter((s) => Date.parse(s.start) % (30 * MINUTE) === 0);
  if (halfHours.length < APPOINTMENTS) throw new Error(`only ${halfHours.length} half-hour slots`);
  // The appointments are of a type with buffers and a daily cap, so that a typed search widens each of them
  // and counts them per local day; they are booked with overridePolicies, as adjacent half hours break the buffers.
  const type = await post('/scheduling/appointment-types', {
    name: 'Bench visit',
    durationMinutes: 30,
    bufferBeforeMinutes: 5,
    bufferAfterMinutes: 10,
    maxPerDayPerProvider: 20,
  });
  const t0 = performance.now();
  // Spread over the month (7 is coprime with the slot count's factors here), booked 8 at a time.
  const picks = Array.from({ length: APPOINTMENTS }, (_, i) => halfHours[(i * 7) % halfHours.length]);
  for (let i = 0; i < picks.length; i += 8) {
    await Promise.all(
      picks.slice(i, i + 8).map((s) =>
        post('/scheduling/book', {
          patientId: patient.id,
          providerId: busy.id,
          datetime: s.start,
          appointmentTypeId: type.id,
          overridePolicies: true,
        }),
      ),
    );
  }
  log(`booked ${APPOINTMENTS} appointments in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const db = await bench.sql();
  await db.query('VACUUM (ANALYZE) appointments');

  const availabilityUrl = `${API}/scheduling/availability?providerId=${busy.id}&${range}&duration=30`;
  const sample = await fetch(availabilityUrl, { headers }).then((r) => r.json());
  log(`availability answers ${sample.slots.length} slots over ${DAYS} days`);
  const typedUrl = `${API}/scheduling/availability?providerId=${busy.id}&${range}&appointmentTypeId=${type.id}`;
  const typedSample = await fetch(typedUrl, { headers }).then((r) => r.json());
  log(`typed availability answers ${typedSample.slots.length} slots over ${DAYS} days`);
  const availability = [];
  for (const [kind, url] of [
    ['duration=30', availabilityUrl],
    ['appointmentTypeId', typedUrl],
  ])
    for (const connections of [1, 8, 32]) {
      await cannon({ url, headers, connections, duration: 2 }); // warm-up
      // The same connections on a one-row read: what the machine gives any request at this moment.
      const base = await cannon({ url: `${API}/scheduling/providers/${busy.id}`, headers, connections, duration: 2 });
      const loadBefore = load();
      const r = await cannon({ url, headers, connections, duration: SECONDS });
      availability.push({
        kind,
        baseRps: base.rps,
        baseP99: base.p99,
        connections,
        rps: r.rps,
        p50: r.p50,
        p99: r.p99,
        errors: r.errors,
        load: loadBefore,
      });
      log(`availability ${kind} c=${connections}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms (load ${loadBefore})`);
    }

  // 2. 32 connections competing for 50 slots of another provider: 20 consecutive requests per slot, so
  //    each slot is contested by requests in flight together. Exactly 50 may succeed.
  const contested = await post('/scheduling/providers', {
    name: 'Dr. Contested',
    timezone: 'UTC',
    workingHours: [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start: '00:00', end: '24:00' })),
  });
  const slotStart = (i) => new Date(day0 + 2 * DAY + i * 30 * MINUTE).toISOString();
  let sent = 0;
  const statuses = {};
  const loadBefore = load();
  const booking = await cannon({
    url: `${API}/scheduling/book`,
    method: 'POST',
    headers,
    amount: CONTESTED_SLOTS * ATTEMPTS_PER_SLOT,
    requests: [
      {
        setupRequest: (req) => {
          const slot = Math.floor(sent++ / ATTEMPTS_PER_SLOT) % CONTESTED_SLOTS;
          return { ...req, body: JSON.stringify({ patientId: patient.id, providerId: contested.id, datetime: slotStart(slot) }) };
        },
        onResponse: (status) => {
          statuses[status] = (statuses[status] ?? 0) + 1;
        },
      },
    ],
  });
  const [{ active }] = (
    await db.query(`SELECT count(*)::int AS active FROM appointments WHERE provider_id = $1 AND status IN ('scheduled', 'confirmed')`, [
      contested.id,
    ])
  ).rows;
  const [{ overlaps }] = (
    await db.query(
      `SELECT count(*)::int AS overlaps FROM appointments a JOIN appointments b ON a.provider_id = b.provider_id AND a.id < b.id
          WHERE a.provider_id = $1 AND a.status IN ('scheduled', 'confirmed') AND b.status IN ('scheduled', 'confirmed')
            AND tstzrange(a.starts_at, a.ends_at) && tstzrange(b.starts_at, b.ends_at)`,
      [contested.id],
    )
  ).rows;
  const ok = statuses[201] === CONTESTED_SLOTS && active === CONTESTED_SLOTS && overlaps === 0;
  log(`booking: ${JSON.stringify(statuses)}, ${active} active appointments, ${overlaps} overlapping pairs, p99 ${booking.p99} ms`);

  const lines = [
    `Load average before the first run: ${availability[0].load} (1/5/15 min; the machine's 2 cores are shared)`,
    '',
    `GET /scheduling/availability, one provider (America/New_York, 06:00–22:00 daily), ${DAYS} days, ${APPOINTMENTS} appointments of a type with 5 + 10 minutes of buffers and a cap of 20 a day; duration=30 (${sample.slots.length} free slots answered) and appointmentTypeId (${typedSample.slots.length}); autocannon ${SECONDS} s after a 2 s warm-up:`,
    '',
    '| Query | Connections | req/s | p50 ms | p99 ms | target p99 | errors | GET provider (2 s): req/s, p99 ms | load before |',
    '|---|---:|---:|---:|---:|---:|---:|---|---|',
    ...availability.map(
      (a) =>
        `| ${a.kind} | ${a.connections} | ${a.rps.toFixed(0)} | ${a.p50} | ${a.p99} | < 50 | ${a.errors} | ${a.baseRps.toFixed(0)}, ${a.baseP99} | ${a.load} |`,
    ),
    '',
    `POST /scheduling/book, 32 connections, ${CONTESTED_SLOTS * ATTEMPTS_PER_SLOT} requests for ${CONTESTED_SLOTS} slots (${ATTEMPTS_PER_SLOT} each, in flight together):`,
    '',
    '| Answers | active appointments | overlapping pairs | req/s | p50 ms | p99 ms | load before |',
    '|---|---:|---:|---:|---:|---:|---|',
    `| ${Object.entries(statuses)
      .map(([s, n]) => `${n}× ${s}`)
      .join(', ')} | ${active} | ${overlaps} | ${booking.rps.toFixed(0)} | ${booking.p50} | ${booking.p99} | ${loadBefore} |`,
    '',
    ok ? 'No double booking: exactly one 201 per slot.' : 'DOUBLE BOOKING OR LOST SLOT: see the table.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  await db.end();
  if (!ok) process.exitCode = 1;
});
