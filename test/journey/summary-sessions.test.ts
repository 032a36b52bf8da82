// The summary's session count and average duration when a session's events are stored in several
// unmerged parts and when a session began before the period: each session with an event in the
// period counts once, from its first event (or the period start, when it began before) to its last.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { TestApp } from "../helpers/app";
import { appWithUnmergedSessions, at, dayPeriodStart, MIN, pageView, postEvents } from "./helpers";

let t: TestApp;
let key: string;
let link: string;

const NOW = Date.now();
const FROM = dayPeriodStart(NOW);

// [session, ms] in the order sent, one flush (one stored part) per line.
const BATCHES: [string, number][][] = [
  [
    ["before", FROM - 90 * MIN],
    ["across", FROM - 30 * MIN],
    ["split", FROM + 60 * MIN],
  ],
  [
    ["before", FROM - 80 * MIN],
    ["across", FROM + 10 * MIN],
    ["split", FROM + 65 * MIN],
  ],
  [
    ["split", FROM + 62 * MIN],
    ["late", NOW - 3 * MIN],
  ],
];

beforeAll(async () => {
  ({ t, key, link } = await appWithUnmergedSessions());
  for (const batch of BATCHES) {
    const events = batch.map(([session, ms]) => pageView(link, `v-${session}`, { session_id: session, timestamp: at(ms) }));
    expect((await postEvents(t, key, events)).status).toBe(202);
    await t.flush();
  }
}, 60_000);
afterAll(async () => {
  await t.runtime.deps.ch.command(`SYSTEM START MERGES ${t.runtime.deps.ch.table("journey_sessions_v2")}`);
  await t.close();
});

test("sessions split across parts count once, and one that began before the period counts from its start", async () => {
  const ch = t.runtime.deps.ch;
  const [{ parts }] = await ch.query<{ parts: string }>(
    "SELECT count() AS parts FROM system.parts WHERE database = {db:String} AND table = 'journey_sessions_v2' AND active",
    { db: ch.database },
  );
  expect(Number(parts)).toBeGreaterThanOrEqual(BATCHES.length);
  const res = await t.call(`/public-api/v1/journey/links/${link}/summary?period=24h`, { key });
  expect(res.status).toBe(200);
  // across: period start → +10 min; split: +60 → +65 min; late: one event; before: not in the period.
  expect(res.body.data.total_sessions).toBe(3);
  expect(res.body.data.avg_session_duration_seconds).toBeCloseTo((10 * 60 + 5 * 60 + 0) / 3, 2);
});

test("a session crossing midnight counts once, and late events into a closed day change the next summary", async () => {
  const midnight = Math.floor(NOW / (24 * 60 * MIN)) * 24 * 60 * MIN - 24 * 60 * MIN;
  const summary = async () => (await t.call(`/public-api/v1/journey/links/${link}/summary?period=7d`, { key })).body.data;
  const send = async (events: [string, number][]) => {
    const body = events.map(([session, ms]) => pageView(link, `v-${session}`, { session_id: session, timestamp: at(ms) }));
    expect((await postEvents(t, key, body)).status).toBe(202);
    await t.flush();
  };
  const before = await summary();
  await send([
    ["midnight", midnight - 10 * MIN],
    ["midnight", midnight + 15 * MIN],
  ]);
  const crossed = await summary();
  expect(crossed.total_sessions).toBe(before.total_sessions + 1);
  const durations = before.avg_session_duration_seconds * before.total_sessions + 25 * 60;
  expect(crossed.avg_session_duration_seconds).toBeCloseTo(durations / crossed.total_sessions, 1);
  // Late: the session's earlier event on the closed day before, and a new session on that day.
  await send([
    ["midnight", midnight - 40 * MIN],
    ["closed-day", midnight - 5 * 60 * MIN],
  ]);
  const late = await summary();
  expect(late.total_sessions).toBe(before.total_sessions + 2);
  expect(late.avg_session_duration_seconds).toBeCloseTo((durations + 30 * 60) / late.total_sessions, 1);
});
