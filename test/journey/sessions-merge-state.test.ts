// The sessions list gives the answer of fully merged data whatever ClickHouse has merged: a session
// that began before the period and whose halves arrived in separate batches is listed whole (its true
// start, duration, events, entry page), on the newest-first fast path, on deep pages and with the
// visitor filter alike, before and after OPTIMIZE … FINAL. Events of the same millisecond are ordered
// by URL, so entry and exit pages never depend on which batch came first.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { TestApp } from "../helpers/app";
import { appWithUnmergedSessions, at, dayPeriodStart, MIN, pageView, postEvents } from "./helpers";

let t: TestApp;
let key: string;
let link: string;

const NOW = Date.now();
const FROM = dayPeriodStart(NOW);
const url = (path: string) => `https://shop.example${path}`;
const ev = (session: string, ms: number, path: string) =>
  pageView(link, `v-${session}`, { session_id: session, timestamp: at(ms), page_url: url(path) });

// One flush (one stored part per table) per batch.
const batches = () => [
  [ev("across", FROM - 30 * MIN, "/start"), ev("across", FROM - 20 * MIN, "/second"), ev("tie", FROM + 100 * MIN, "/b")],
  [ev("across", FROM + 10 * MIN, "/third"), ev("across", FROM + 15 * MIN, "/end"), ev("tie", FROM + 100 * MIN, "/a")],
  [ev("tie", FROM + 101 * MIN, "/c"), ...["n1", "n2", "n3", "n4"].map((s, i) => ev(s, NOW - (i + 1) * MIN, `/${s}`))],
];

const EXPECTED = {
  across: {
    started_at: at(FROM - 30 * MIN),
    ended_at: at(FROM + 15 * MIN),
    duration_seconds: 45 * 60,
    event_count: 4,
    page_views: 4,
    entry_page: url("/start"),
    exit_page: url("/end"),
    visitor_id: "v-across",
  },
  tie: { started_at: at(FROM + 100 * MIN), event_count: 3, entry_page: url("/a"), exit_page: url("/c"), duration_seconds: 60 },
};
const ORDER = ["n1", "n2", "n3", "n4", "tie", "across"];

beforeAll(async () => {
  ({ t, key, link } = await appWithUnmergedSessions());
  for (const batch of batches()) {
    expect((await postEvents(t, key, batch)).status).toBe(202);
    await t.flush();
  }
}, 60_000);
afterAll(() => t.close());

const sessions = async (query: string) => {
  const res = await t.call(`/public-api/v1/journey/links/${link}/sessions?period=24h&${query}`, { key });
  expect(res.status).toBe(200);
  return res.body as { data: Record<string, unknown>[]; meta: { total: number } };
};

async function expectWholeSessions() {
  // The general query (a page larger than the period's sessions).
  const all = await sessions("limit=100");
  expect(all.data.map((s) => s.session_id)).toEqual(ORDER);
  expect(all.meta.total).toBe(ORDER.length);
  expect(all.data.find((s) => s.session_id === "across")).toMatchObject(EXPECTED.across);
  expect(all.data.find((s) => s.session_id === "tie")).toMatchObject(EXPECTED.tie);
  // One session per page: the newest-first path for the first pages, the general one after.
  const paged = [];
  for (let page = 1; page <= ORDER.length; page++) paged.push(...(await sessions(`limit=1&page=${page}`)).data);
  expect(paged).toEqual(all.data);
  // The visitor filter.
  const mine = await sessions("visitor_id=v-across");
  expect(mine.meta.total).toBe(1);
  expect(mine.data).toEqual([all.data.find((s) => s.session_id === "across")!]);
  return all.data;
}

test("a session split across unmerged parts and the period start is listed whole, as after a full merge", async () => {
  const ch = t.runtime.deps.ch;
  const [{ parts }] = await ch.query<{ parts: string }>(
    "SELECT count() AS parts FROM system.parts WHERE database = {db:String} AND table = 'journey_sessions_v2' AND active",
    { db: ch.database },
  );
  expect(Number(parts)).toBeGreaterThanOrEqual(3);
  const unmerged = await expectWholeSessions();

  await ch.command(`SYSTEM START MERGES ${ch.table("journey_sessions_v2")}`);
  await ch.command(`OPTIMIZE TABLE ${ch.table("journey_sessions_v2")} FINAL`);
  const [{ merged }] = await ch.query<{ merged: string }>(
    "SELECT count() AS merged FROM system.parts WHERE database = {db:String} AND table = 'journey_sessions_v2' AND active",
    { db: ch.database },
  );
  expect(Number(merged)).toBe(1);
  expect(await expectWholeSessions()).toEqual(unmerged);
});
