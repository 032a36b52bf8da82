// The compared-window store (server/reports/compared-store.ts, migration 0290): a `compare=previous`
// answer is computed once, exactly, and served from the store while its window's event bundles are
// unchanged. Figures are counted here from the events sent; a stored row altered by the test shows which
// calls the store answered. Late events, an erasure (the visitor's rows deleted, with a late event of as
// many bundles at once), another account, another link, calls at once, a batch across the window's start
// and one across its end, unmerged parts and OPTIMIZE FINAL.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";
import { insertEvents, type SentEvent } from "../conversions/helpers";
import { insertLink } from "../journey/helpers";
import { forceMerges, stopMerges } from "../insights/helpers";
import { ROOM_IN_HOUR_MAX_WAIT_MS, roomInHour } from "../helpers/hour";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MIN = 60_000;
let t: TestApp;
let a: { accountId: string; key: string };
let b: { accountId: string; key: string };
let link1: string;
let link2: string;
let linkB: string;
/** Every event sent, per account. */
const sent = new Map<string, SentEvent[]>();
/** The compared window of a 30-day report asked this hour: [from, to). */
let from: number;
let to: number;

const ev = (link: string, visitor: string, type: "page_view" | "conversion", ms: number): SentEvent => ({
  link,
  visitor,
  type,
  ms,
  device: "desktop",
  country: "DE",
  ...(type === "conversion" ? { event_name: "purchase", conversion_name: "purchase", revenue_cents: 1000 } : {}),
});

async function send(accountId: string, events: SentEvent[]) {
  sent.set(accountId, [...(sent.get(accountId) ?? []), ...events]);
  await insertEvents(t.runtime.deps.ch, accountId, events, events.length);
}

/** What the summary, funnel and conversions summary must say of [from, to), counted from the events sent. */
function expected(accountId: string, links: string[]) {
  const inWindow = (sent.get(accountId) ?? []).filter((e) => links.includes(e.link) && e.ms >= from && e.ms < to);
  const visitors = new Set(inWindow.map((e) => e.visitor));
  const viewed = new Map<string, number>();
  for (const e of inWindow) if (e.type === "page_view") viewed.set(e.visitor, Math.min(viewed.get(e.visitor) ?? Infinity, e.ms));
  const bought = new Set(
    inWindow.filter((e) => e.type === "conversion" && e.ms > (viewed.get(e.visitor) ?? Infinity)).map((e) => e.visitor),
  );
  const conversions = inWindow.filter((e) => e.type === "conversion");
  return {
    events: inWindow.length,
    visitors: visitors.size,
    funnel: [viewed.size, bought.size],
    conversions: conversions.length,
    converters: new Set(conversions.map((e) => e.visitor)).size,
  };
}

const get = async (key: string, path: string) => {
  const res = await t.call(`/public-api/v1${path}`, { key });
  expect(res.status).toBe(200);
  const body = res.body.data;
  // Every call of this file is asked in the same hour, so has the same compared window.
  expect([Date.parse(body.comparison.from), Date.parse(body.comparison.to)]).toEqual([from, to]);
  return body;
};
const summary = (link: string) => get(a.key, `/journey/links/${link}/summary?compare=previous`);
const funnel = (link: string) => get(a.key, `/journey/links/${link}/funnel?steps=page_view,purchase&compare=previous`);
const funnelCounts = (f: { comparison: { data: { steps: { visitors: number }[] } } }) => f.comparison.data.steps.map((s) => s.visitors);

/** The stored rows of an account's report: (computed_at, answer), oldest first. */
async function storedRows(accountId: string, report: string) {
  const ch = t.runtime.deps.ch;
  return ch.query<{ key: string; fingerprint: string; answer: string; computed_at: string }>(
    `SELECT key, fingerprint, answer, toString(computed_at) AS computed_at FROM ${ch.table("compared_windows")}
     WHERE account_id = {account:UUID} AND report = {report:String} ORDER BY computed_at`,
    { account: accountId, report },
  );
}

/** Stores, a millisecond after the latest answer of the account's report, that answer changed by `change`: served only from the store. */
async function alterStored(accountId: string, report: string, change: (answer: Record<string, unknown>) => void) {
  const rows = await storedRows(accountId, report);
  expect(rows.length).toBeGreaterThan(0);
  const latest = rows.at(-1)!;
  const answer = JSON.parse(latest.answer);
  change(answer);
  await t.runtime.deps.ch.command(
    `INSERT INTO ${t.runtime.deps.ch.table("compared_windows")} (account_id, report, key, fingerprint, answer, computed_at)
     SELECT {account:UUID}, {report:String}, {key:String}, {fingerprint:String}, {answer:String},
       toDateTime64({at:String}, 3, 'UTC') + toIntervalMillisecond(1)`,
    {
      account: accountId,
      report,
      key: latest.key,
      fingerprint: latest.fingerprint,
      answer: JSON.stringify(answer),
      at: latest.computed_at,
    },
  );
}

/** Deletes every row of a visitor in the tables the reports read per visitor, as an erasure would. */
async function erase(visitor: string) {
  const ch = t.runtime.deps.ch;
  for (const [table, where] of [
    ["journey_events", "visitor_id = {v:String}"],
    ["journey_event_bundles", "vh = cityHash64({v:String})"],
  ] as const) {
    await ch.command(`SYSTEM START MERGES ${ch.table(table)}`);
    await ch.command(`ALTER TABLE ${ch.table(table)} DELETE WHERE ${where} SETTINGS mutations_sync = 2`, { v: visitor });
    await ch.command(`SYSTEM STOP MERGES ${ch.table(table)}`);
  }
}

beforeAll(async () => {
  // The compared window moves with the hour: start with enough of the hour left for the whole file.
  await roomInHour(5);
  const now = Date.now();
  from = Math.floor((now - 30 * DAY) / HOUR) * HOUR - 35 * DAY;
  to = Math.ceil(now / HOUR) * HOUR - 35 * DAY;
  t = await createTestApp({}, {}, { jobs: false });
  a = await t.createAccount({ tier: "scale" });
  b = await t.createAccount({ tier: "scale" });
  [link1, link2, linkB] = [await insertLink(t, a.accountId), await insertLink(t, a.accountId), await insertLink(t, b.accountId)];
  // Each insert stays its own part (and each batch its own bundles) until the last test merges them.
  await stopMerges(t);
  const mid = from + 15 * DAY;
  const events: SentEvent[] = [];
  for (let v = 0; v < 12; v++) {
    const at = mid + v * 7 * HOUR;
    events.push(ev(link1, `a${v}`, "page_view", at), ev(link1, `a${v}`, "page_view", at + MIN));
    if (v % 3 === 0) events.push(ev(link1, `a${v}`, "conversion", at + 2 * MIN));
  }
  // On link 2, fewer visitors; before the window, in the current period, dated ahead.
  for (let v = 0; v < 4; v++)
    events.push(ev(link2, `c${v}`, "page_view", mid + v * HOUR), ev(link2, `c${v}`, "conversion", mid + v * HOUR + MIN));
  events.push(ev(link1, "before", "page_view", from - 2 * DAY), ev(link1, "current", "page_view", now - 2 * DAY));
  events.push(ev(link1, "ahead", "page_view", now + HOUR));
  await send(a.accountId, events);
  // One batch across the window's start and one across its end: only their events inside count.
  await send(a.accountId, [ev(link1, "early", "page_view", from - 5 * MIN), ev(link1, "early", "conversion", from + 5 * MIN)]);
  await send(a.accountId, [ev(link1, "edge", "page_view", to - 5 * MIN), ev(link1, "edge", "conversion", to + 5 * MIN)]);
  // The other account, on its own link.
  await send(
    b.accountId,
    [0, 1].flatMap((v) => [ev(linkB, `b${v}`, "page_view", mid), ev(linkB, `b${v}`, "conversion", mid + MIN)]),
  );
}, 120_000 + ROOM_IN_HOUR_MAX_WAIT_MS);
afterAll(() => t.close());

test("a compared window's answer is the exact one, stored, and later calls are served from the store", async () => {
  const want = expected(a.accountId, [link1]);
  expect(want.visitors).toBe(14); // 12, "early" and "edge"
  const first = await summary(link1);
  expect(first.comparison.data.total_events).toBe(want.events);
  expect(first.comparison.data.total_visitors).toBe(want.visitors);
  const f = await funnel(link1);
  expect(funnelCounts(f)).toEqual(want.funnel);
  expect(want.funnel).toEqual([13, 4]); // "early" bought before the window, "edge" after it
  const rows = await storedRows(a.accountId, "journey.summary");
  expect(rows).toHaveLength(1);
  expect(JSON.parse(rows[0].answer)).toEqual(first.comparison.data);
  // The second call reads the store (and the current period, computed as always).
  expect((await summary(link1)).comparison.data).toEqual(first.comparison.data);
  await alterStored(a.accountId, "journey.summary", (x) => (x.total_events = 987_654));
  expect((await summary(link1)).comparison.data.total_events).toBe(987_654);
  expect(await storedRows(a.accountId, "journey.summary")).toHaveLength(2);
}, 60_000);

test("a late event into the compared window makes it computed again", async () => {
  await alterStored(a.accountId, "journey.funnel", (x) => ((x.steps as { visitors: number }[])[0].visitors = 987_654));
  expect(funnelCounts(await funnel(link1))[0]).toBe(987_654);
  await send(a.accountId, [ev(link1, "late", "page_view", from + 3 * DAY), ev(link1, "late", "conversion", from + 3 * DAY + MIN)]);
  const want = expected(a.accountId, [link1]);
  const s = await summary(link1);
  expect(s.comparison.data.total_events).toBe(want.events);
  expect(s.comparison.data.total_visitors).toBe(15);
  expect(funnelCounts(await funnel(link1))).toEqual([14, 5]);
  expect(want.funnel).toEqual([14, 5]);
  // An event of the current period changes no compared window.
  const before = (await storedRows(a.accountId, "journey.summary")).length;
  await send(a.accountId, [ev(link1, "today", "page_view", Date.now() - HOUR)]);
  const again = await summary(link1);
  expect(again.comparison.data).toEqual(s.comparison.data);
  expect(await storedRows(a.accountId, "journey.summary")).toHaveLength(before);
}, 60_000);

test("a stored window is never served to another link or another account", async () => {
  // Link 2's funnel, asked after link 1's was stored (and altered), is its own.
  await alterStored(a.accountId, "journey.funnel", (x) => ((x.steps as { visitors: number }[])[0].visitors = 987_654));
  expect(funnelCounts(await funnel(link2))).toEqual(expected(a.accountId, [link2]).funnel);
  expect(expected(a.accountId, [link2]).funnel).toEqual([4, 4]);
  // The account-wide conversions summary: same report, parameters and window for both accounts.
  const conv = async (key: string) => (await get(key, "/conversions/summary?compare=previous")).comparison.data;
  const wantA = expected(a.accountId, [link1, link2]);
  expect(await conv(a.key)).toMatchObject({ total_conversions: wantA.conversions, unique_converters: wantA.converters });
  await alterStored(a.accountId, "conversions.summary", (x) => (x.total_conversions = 987_654));
  expect((await conv(a.key)).total_conversions).toBe(987_654);
  const wantB = expected(b.accountId, [linkB]);
  expect(await conv(b.key)).toMatchObject({ total_conversions: wantB.conversions, unique_converters: wantB.converters });
  expect(wantB.conversions).toBe(2);
  // Another account's key cannot name the link at all.
  expect(
    (await t.call(`/public-api/v1/journey/links/${link1}/funnel?steps=page_view,purchase&compare=previous`, { key: b.key })).status,
  ).toBe(404);
}, 60_000);

test("calls at once over a changed window each answer exactly, and what they store is that answer", async () => {
  // A late conversion of account B: the stored window is stale, and four calls (as four instances) compute it at once.
  await send(b.accountId, [ev(linkB, "b9", "page_view", from + DAY), ev(linkB, "b9", "conversion", from + DAY + MIN)]);
  const want = expected(b.accountId, [linkB]);
  expect(want.conversions).toBe(3);
  const answers = await Promise.all(
    [1, 2, 3, 4].map(async () => (await get(b.key, "/conversions/summary?compare=previous")).comparison.data),
  );
  for (const answer of answers) expect(answer).toMatchObject({ total_conversions: 3, unique_converters: want.converters });
  const rows = await storedRows(b.accountId, "conversions.summary");
  const latest = rows.filter((r) => r.fingerprint === rows.at(-1)!.fingerprint);
  expect(latest.length).toBeGreaterThanOrEqual(1);
  for (const r of latest) expect(JSON.parse(r.answer)).toEqual(answers[0]);
  expect((await get(b.key, "/conversions/summary?compare=previous")).comparison.data).toEqual(answers[0]);
}, 60_000);

test("an erasure makes it computed again, also when late events add as many bundle rows at once", async () => {
  // Link 1's funnel is still the answer the test altered above (the store's), until an erasure.
  expect(funnelCounts(await funnel(link1))).toEqual([987_654, 5]);
  await erase("a3"); // a page view and a purchase, in one batch: one bundle row
  sent.set(
    a.accountId,
    sent.get(a.accountId)!.filter((e) => e.visitor !== "a3"),
  );
  expect(funnelCounts(await funnel(link1))).toEqual(expected(a.accountId, [link1]).funnel);
  expect(expected(a.accountId, [link1]).funnel).toEqual([13, 4]);
  // Another visitor's data erased and a late visitor's batch (one bundle row each) between two calls.
  await alterStored(a.accountId, "journey.funnel", (x) => ((x.steps as { visitors: number }[])[0].visitors = 987_654));
  await erase("a4");
  sent.set(
    a.accountId,
    sent.get(a.accountId)!.filter((e) => e.visitor !== "a4"),
  );
  await send(a.accountId, [ev(link1, "late2", "page_view", from + 4 * DAY)]);
  expect(funnelCounts(await funnel(link1))).toEqual(expected(a.accountId, [link1]).funnel);
  expect(expected(a.accountId, [link1]).funnel).toEqual([13, 4]);
}, 120_000);

test("paths: the compared window ends on a whole hour and its answer is stored", async () => {
  const path = `/journey/links/${link1}/paths?start=page_view&period=30d&compare=previous`;
  const res = await t.call(`/public-api/v1${path}`, { key: a.key });
  expect(res.status).toBe(200);
  const { comparison } = res.body.data;
  expect([Date.parse(comparison.from), Date.parse(comparison.to)]).toEqual([from, to]);
  // Visitors with a page view in the window (a3 and a4 erased, "late2" added).
  expect(comparison.data.visitors).toBe(expected(a.accountId, [link1]).funnel[0]);
  expect(await storedRows(a.accountId, "insights.paths")).toHaveLength(1);
  expect((await t.call(`/public-api/v1${path}`, { key: a.key })).body.data.comparison).toEqual(comparison);
  expect(await storedRows(a.accountId, "insights.paths")).toHaveLength(1);
}, 60_000);

test("after OPTIMIZE FINAL of every table the stored answers still hold and are still served", async () => {
  const s = await summary(link1);
  const f = await funnel(link1);
  const counts = {
    summary: (await storedRows(a.accountId, "journey.summary")).length,
    funnel: (await storedRows(a.accountId, "journey.funnel")).length,
  };
  await forceMerges(t);
  // Merged, the store keeps one row per key (the latest), and the fingerprints are unchanged: no computing again.
  const latest = async (report: string) => (await storedRows(a.accountId, report)).at(-1)!.computed_at;
  const [sAt, fAt] = [await latest("journey.summary"), await latest("journey.funnel")];
  expect((await summary(link1)).comparison).toEqual(s.comparison);
  expect((await funnel(link1)).comparison).toEqual(f.comparison);
  expect([await latest("journey.summary"), await latest("journey.funnel")]).toEqual([sAt, fAt]);
  expect((await storedRows(a.accountId, "journey.summary")).length).toBeLessThanOrEqual(counts.summary);
  expect(funnelCounts(f)).toEqual(expected(a.accountId, [link1]).funnel);
}, 120_000);
