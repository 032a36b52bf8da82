// The journey summary's session count and average duration from the closed hours' stored state
// (migration 0251, session-hours-query.ts) must be exactly what the events sent give — each session with
// an event in the period, from its first event (or the period start) to its last — for every period, with
// sessions crossing midnight and the period start, after late events into stored hours (and dated before
// the period), and whatever has been merged. Reports only read: the journey job's round stores the hours.
import { beforeAll, expect, test } from "bun:test";
import { refreshJourneyReports } from "../../server/journey/report-cache-job";
import { noteScope } from "../../server/journey/report-demand";
import { countSummarySessions, sessionsFromTable, storedSessionFigures } from "../../server/journey/session-hours-query";
import { insertJourneyRows } from "../../server/ingest/journey/repository";
import { toJourneyRow } from "../../server/ingest/journey/rows";
import type { Clickhouse } from "../../server/storage/clickhouse/client";
import { chTime } from "../../server/storage/clickhouse/format";
import { useClickhouseBefore } from "../helpers/migrated-clickhouse";

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const now = Date.now();
const today = Math.floor(now / DAY) * DAY;
const account = crypto.randomUUID();
const link = crypto.randomUUID();

const db = useClickhouseBefore(100_000);
let ch: Clickhouse;
beforeAll(() => {
  ch = db.ch;
});

/** Deterministic pseudo-random numbers, so a failure repeats. */
function random(seed: number) {
  let x = seed;
  return () => {
    x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
    return x / 2_147_483_648;
  };
}

type Sent = [session: string, ms: number];
const sent: Sent[] = [];
/** One insert (one batch, as the spool flusher writes it); an empty session id is an event without one. */
async function send(batch: Sent[]) {
  const events = batch.map(([s, ms]): Sent => [s, Math.floor(ms)]);
  const receivedMs = Date.now();
  const rows = events.map(([session, ms]) =>
    toJourneyRow(crypto.randomUUID(), receivedMs, chTime(receivedMs), account, {
      link_id: link,
      visitor_id: `v-${session}`,
      session_id: session,
      event_type: "page_view",
      page_url: "https://shop.example/",
      timestamp: new Date(ms).toISOString(),
    }),
  );
  await insertJourneyRows(ch, Buffer.from(rows.map((r) => JSON.stringify(r)).join("\n")), rows.length, crypto.randomUUID());
  sent.push(...events);
}

/** What the events sent give for a period starting at `fromMs`. */
function expected(fromMs: number) {
  const spans = new Map<string, [number, number]>();
  for (const [s, ms] of sent) {
    if (s === "") continue;
    const [a, b] = spans.get(s) ?? [ms, ms];
    spans.set(s, [Math.min(a, ms), Math.max(b, ms)]);
  }
  const mine = [...spans.values()].filter(([, b]) => b >= fromMs);
  const sum = mine.reduce((acc, [a, b]) => acc + b - Math.max(a, fromMs), 0);
  return { sessions: mine.length, avgSeconds: mine.length ? sum / mine.length / 1000 : null };
}

const periodStarts = () => [1, 2, 7, 30, 90].map((days) => Math.floor((now - days * DAY) / HOUR) * HOUR);
const range = (fromMs: number) => ({ accountId: account, linkId: link, fromMs });

/** Stored figures for every period, equal to the events'; `stored` whether they must come from the stored hours. */
async function expectExact(stored: boolean) {
  for (const fromMs of periodStarts()) {
    const want = expected(fromMs);
    const got = await countSummarySessions(ch, range(fromMs), now);
    expect({ from: fromMs, n: got.sessions }).toEqual({ from: fromMs, n: want.sessions });
    expect(got.avgSeconds ?? 0).toBeCloseTo(want.avgSeconds ?? 0, 6);
    const table = await sessionsFromTable(ch, range(fromMs));
    expect(table.sessions).toBe(want.sessions);
    const fromStored = await storedSessionFigures(ch, range(fromMs), now);
    if (stored) {
      expect(fromStored?.sessions).toBe(want.sessions);
      expect(fromStored?.avgSeconds ?? 0).toBeCloseTo(want.avgSeconds ?? 0, 6);
    } else expect(fromStored).toBeNull();
  }
}

const round = () => refreshJourneyReports(ch, now);

test("a seeded workload over 90 days: exact before the job's round (from the table), and from the stored hours after it", async () => {
  const r = random(7);
  const events: Sent[] = [];
  const starts: number[] = [];
  for (let s = 0; s < 600; s++) {
    // Some session ids come back 2 to 30 days later (one session in the table), some start on the hour.
    const id = `s${s % 450}`;
    const later = s >= 450 ? starts[s - 450] + (2 + r() * 28) * DAY : 0;
    const start = later || (s % 9 === 0 ? Math.floor((now - r() * 92 * DAY) / HOUR) * HOUR : now - r() * 92 * DAY);
    starts.push(start);
    const len = 1 + Math.floor(r() * 5);
    for (let j = 0; j < len; j++) events.push([id, Math.min(now - 1000, start + j * r() * 20 * MIN)]);
  }
  events.push(["", now - 3 * DAY]);
  for (let i = 0; i < events.length; i += 150) await send(events.slice(i, i + 150));
  noteScope(ch, { accountId: account, scope: link }, now);
  await expectExact(false);
  expect(await round()).toBeGreaterThan(0);
  await expectExact(true);
  await ch.command(`OPTIMIZE TABLE ${ch.table("journey_event_bundles")} FINAL`);
  await ch.command(`OPTIMIZE TABLE ${ch.table("journey_sessions_v2")} FINAL`);
  await expectExact(true);
}, 120_000);

test("a session crossing midnight and one crossing the period start count once, from their first event in the period", async () => {
  const yesterday = today - DAY;
  const from1d = periodStarts()[0];
  await send([
    ["midnight", yesterday - 10 * MIN],
    ["midnight", yesterday + 15 * MIN],
    ["start", from1d - 20 * MIN],
    ["start", from1d + 25 * MIN],
  ]);
  await send([["midnight", yesterday + 40 * MIN]]);
  await round();
  await expectExact(true);
}, 120_000);

test("late events into a stored hour, and one dated before the period, are counted once the job has run; exact meanwhile", async () => {
  const hourAgo = Math.floor(now / HOUR) * HOUR - 3 * HOUR;
  const from7d = periodStarts()[2];
  // A session that so far began in the period, then an event of it dated before the period; a late event
  // into a stored hour; a new session in a closed day.
  await send([["late-start", from7d + 2 * HOUR]]);
  await round();
  await expectExact(true);
  await send([["late-start", from7d - 2 * HOUR]]);
  await send([
    ["s1", hourAgo + 5 * MIN],
    ["late-new", today - 2 * DAY + 7 * MIN],
  ]);
  await expectExact(false);
  expect(await round()).toBeGreaterThan(0);
  await expectExact(true);
}, 120_000);

test("the open hour's sessions: new, continuing a stored one, and one whose batch starts before its earlier ones", async () => {
  const open = Math.floor(now / HOUR) * HOUR;
  // "revived": silent for the whole 1-day period, back in the open hour (it counts from the period start).
  await send([
    ["cont", open - 90 * MIN],
    ["revived", now - 30 * HOUR],
  ]);
  await round();
  await send([
    ["cont", Math.max(open, now - 2 * MIN)],
    ["fresh", Math.max(open, now - 1 * MIN)],
    ["revived", Math.max(open, now - 1 * MIN)],
  ]);
  await expectExact(true);
  // An open-hour batch that carries an event before the session's stored first one: exact, from the table.
  await send([
    ["cont", open - 100 * MIN],
    ["cont", Math.max(open, now - 30_000)],
  ]);
  const from1d = periodStarts()[0];
  expect(await storedSessionFigures(ch, range(from1d), now)).toBeNull();
  const want = expected(from1d);
  expect((await countSummarySessions(ch, range(from1d), now)).sessions).toBe(want.sessions);
}, 120_000);
