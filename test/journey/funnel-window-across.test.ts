// The stored funnel's two shortcuts for the current hour's visitors (funnel-cache-query.ts): visitors whose
// first step lies in the stored range's first hour, whose chain the window can cut at this hour's events,
// counted in this process by windowFunnel's own rules (window-funnel.ts) over their entries kept in memory;
// and visitors with a batch across the hour's start, combined with their whole stored state. Each answer
// is compared with windowFunnel over the raw events (computed apart from the code under test), after
// restarts of a chain, events dated ahead, batches across the hour's start, unmerged and merged parts, a
// late event into a stored hour, an erasure, and with the memory too small to keep the entries.
import { afterEach, beforeAll, expect, test } from "bun:test";
import { insertJourneyRows } from "../../server/ingest/journey/repository";
import { toJourneyRow } from "../../server/ingest/journey/rows";
import { countFunnelLevelsStored, periodFromMs, RISKY_ENTRIES } from "../../server/journey/funnel-cache-query";
import { countFunnelLevels } from "../../server/journey/funnel-query";
import { refreshJourneyReports } from "../../server/journey/report-cache-job";
import { windowFunnelLevel, type StepEntry } from "../../server/journey/window-funnel";
import type { Clickhouse } from "../../server/storage/clickhouse/client";
import { chTime } from "../../server/storage/clickhouse/format";
import { useClickhouseBefore } from "../helpers/migrated-clickhouse";
import { ROOM_IN_HOUR_MAX_WAIT_MS, roomInHour } from "../helpers/hour";

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const db = useClickhouseBefore(100_000);
let ch: Clickhouse;
let now: number;
let hour: number;
const account = crypto.randomUUID();
const link = crypto.randomUUID();
const STEPS = ["page_view", "add_to_cart", "purchase"];
const PERIODS = [30 * DAY, 7 * DAY];
beforeAll(async () => {
  ch = db.ch;
  // The stored range moves with the hour: start with enough of it left for the whole file, and a few
  // seconds of it gone (this hour's events come after its start).
  await roomInHour(4, 5_000);
  now = Date.now();
  hour = Math.floor(now / HOUR) * HOUR;
}, ROOM_IN_HOUR_MAX_WAIT_MS);

type Step = "page_view" | "add_to_cart" | "purchase";
interface Ev {
  visitor: string;
  type: Step;
  ms: number;
  /** The session; by default one per visitor and hour. */
  session?: string;
}

/** Sends the events, each list as one batch (one bundle per session and day). */
async function send(evs: Ev[]) {
  const receivedMs = Date.now();
  const rows = evs.map(({ visitor, type, ms, session }) =>
    toJourneyRow(crypto.randomUUID(), receivedMs, chTime(receivedMs), account, {
      visitor_id: visitor,
      link_id: link,
      session_id: session ?? `s-${visitor}-${Math.floor(ms / HOUR)}`,
      timestamp: new Date(ms).toISOString(),
      ...(type === "page_view"
        ? { event_type: "page_view", page_url: "/p" }
        : { event_type: type === "purchase" ? "conversion" : "custom", event_name: type, page_url: "/cart" }),
    }),
  );
  await insertJourneyRows(ch, Buffer.from(rows.map((r) => JSON.stringify(r)).join("\n")), rows.length, crypto.randomUUID());
}

/** The definition: windowFunnel over the period's raw events, and every visitor of the period. */
async function reference(fromMs: number, windowMs: number) {
  const p = { account, link, from: fromMs, window: windowMs };
  const cond = ["event_type = 'page_view'", "event_name = 'add_to_cart'", "event_name = 'purchase'"];
  const scope = "account_id = {account:UUID} AND link_id = {link:UUID} AND timestamp >= fromUnixTimestamp64Milli({from:Int64}, 'UTC')";
  const levels = await ch.query<{ level: number; n: string }>(
    `SELECT level, count() AS n FROM (
      SELECT windowFunnel({window:UInt64}, 'strict_order')(toUInt64(toUnixTimestamp64Milli(timestamp)), ${cond.map((c) => `(${c})`).join(", ")}) AS level
      FROM ${ch.table("journey_events")} WHERE ${scope} AND (${cond.join(" OR ")}) GROUP BY visitor_id) GROUP BY level`,
    p,
  );
  const [{ n }] = await ch.query<{ n: string }>(`SELECT uniqExact(visitor_id) AS n FROM ${ch.table("journey_events")} WHERE ${scope}`, p);
  const byLevel = [0, 0, 0, 0];
  for (const l of levels) byLevel[Number(l.level)] += Number(l.n);
  byLevel[0] += Number(n) - byLevel.reduce((a, b) => a + b, 0);
  return byLevel;
}

/** Every period through the stored range (asserted), against the reference; the visitors sent to windowFunnel. */
async function expectExactStored() {
  const fallbacks: number[] = [];
  for (const periodMs of PERIODS) {
    const range = { accountId: account, linkId: link, fromMs: periodFromMs(periodMs, now) };
    const stored = await countFunnelLevelsStored(ch, range, STEPS, periodMs, now);
    expect({ periodMs, stored: stored !== null }).toEqual({ periodMs, stored: true });
    fallbacks.push(stored?.fallback.length ?? -1);
    expect({ periodMs, levels: await countFunnelLevels(ch, range, STEPS, periodMs, now) }).toEqual({
      periodMs,
      levels: await reference(range.fromMs, periodMs),
    });
  }
  return fallbacks;
}

const first30 = () => periodFromMs(30 * DAY, now);
const first7 = () => periodFromMs(7 * DAY, now);
/** Visitors of the 30- and 7-day periods' first hours, by what they did there and later (before this hour). */
function firstHourVisitors(): Ev[] {
  const out: Ev[] = [];
  for (const [tag, start] of [
    ["m", first30()],
    ["w", first7()],
  ] as const) {
    for (let i = 0; i < 4; i++) {
      const t = start + i * 1000;
      // A first step only: this hour's next steps come more than a window after it.
      out.push({ visitor: `${tag}only${i}`, type: "page_view", ms: t });
      // Two steps in the first hour, the last one in this hour (cut by the window).
      out.push({ visitor: `${tag}two${i}`, type: "page_view", ms: t }, { visitor: `${tag}two${i}`, type: "add_to_cart", ms: t + MIN });
      // A first step again days later: the chain restarts there, and this hour's steps fit its window.
      out.push(
        { visitor: `${tag}again${i}`, type: "page_view", ms: t },
        { visitor: `${tag}again${i}`, type: "page_view", ms: hour - 2 * DAY + i },
      );
      // A second step 10 minutes before this hour; this hour's batch (below) holds a third step before it.
      out.push(
        { visitor: `${tag}mixed${i}`, type: "page_view", ms: t },
        { visitor: `${tag}mixed${i}`, type: "add_to_cart", ms: hour - 10 * MIN + i },
      );
      // Two steps, the second one more than a window after the first (never raised), then a third.
      out.push({ visitor: `${tag}stop${i}`, type: "page_view", ms: t }, { visitor: `${tag}stop${i}`, type: "purchase", ms: t + 2 * MIN });
    }
  }
  return out;
}

/** What the first-hour visitors do in this hour (and one of each dated ahead). */
function firstHourContinued(): Ev[] {
  const at = (x: number) => Math.min(now, hour + x);
  return ["m", "w"].flatMap((tag) =>
    [0, 1, 2, 3].flatMap((i) => [
      { visitor: `${tag}only${i}`, type: "add_to_cart" as const, ms: at(2000 + i) },
      { visitor: `${tag}only${i}`, type: "purchase" as const, ms: at(3000 + i) },
      { visitor: `${tag}two${i}`, type: "purchase" as const, ms: at(2000 + i) },
      { visitor: `${tag}again${i}`, type: "add_to_cart" as const, ms: at(2000 + i) },
      { visitor: `${tag}again${i}`, type: "purchase" as const, ms: i === 3 ? now + 5 * HOUR : at(3000 + i) },
      { visitor: `${tag}stop${i}`, type: "add_to_cart" as const, ms: at(4000 + i) },
      // A batch across the hour's start, interleaved with the stored entries: stopped at the first step.
      { visitor: `${tag}mixed${i}`, type: "purchase" as const, ms: hour - 20 * MIN + i, session: `${tag}mixed${i}-across` },
      { visitor: `${tag}mixed${i}`, type: "page_view" as const, ms: at(2000 + i), session: `${tag}mixed${i}-across` },
    ]),
  );
}

/** Other visitors over the 40 days before this hour. */
function history(): Ev[] {
  const out: Ev[] = [];
  for (let v = 0; v < 400; v++) {
    let ms = hour - 40 * DAY + (((v * 7919) % 9973) / 9973) * 40 * DAY;
    out.push({ visitor: `h${v}`, type: "page_view", ms });
    if (v % 3 === 0) out.push({ visitor: `h${v}`, type: "add_to_cart", ms: (ms += MIN) });
    if (v % 7 === 0) out.push({ visitor: `h${v}`, type: "purchase", ms: (ms += MIN) });
  }
  return out;
}

afterEach(() => {
  RISKY_ENTRIES.limit = 500_000;
});

test("windowFunnelLevel gives ClickHouse's windowFunnel over random entries, restarts and ties included", async () => {
  let seed = 7;
  const rnd = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const visitors = Array.from({ length: 400 }, () =>
    Array.from({ length: 1 + Math.floor(rnd() * 9) }, () => ({ ms: Math.floor(rnd() * 40) * 1000, mask: 1 + Math.floor(rnd() * 7) })),
  );
  for (const n of [1, 2, 3]) {
    const windowMs = 10_000;
    const rows = visitors.flatMap((es, v) => es.map((e) => `(${v}, ${e.ms}, ${e.mask})`)).join(", ");
    const conds = Array.from({ length: n }, (_, i) => `bitAnd(m, ${2 ** i}) != 0`).join(", ");
    const want = await ch.query<{ v: number; level: number }>(
      `SELECT v, windowFunnel(${windowMs}, 'strict_order')(toUInt64(t), ${conds}) AS level
      FROM (SELECT tupleElement(x, 1) AS v, tupleElement(x, 2) AS t, tupleElement(x, 3) AS m FROM (SELECT arrayJoin([${rows}]) AS x))
      WHERE bitAnd(m, ${2 ** n - 1}) != 0 GROUP BY v ORDER BY v`,
    );
    const got = new Map(want.map((w) => [Number(w.v), windowFunnelLevel(visitors[Number(w.v)] as StepEntry[], n, windowMs)]));
    expect(want.map((w) => [Number(w.v), got.get(Number(w.v))])).toEqual(want.map((w) => [Number(w.v), Number(w.level)]));
  }
}, 60_000);

test("first-hour chains cut by the window, counted in process from the kept entries, unmerged and merged", async () => {
  await send(history());
  await send(firstHourVisitors());
  for (const periodMs of PERIODS) {
    await countFunnelLevels(ch, { accountId: account, linkId: link, fromMs: periodFromMs(periodMs, now) }, STEPS, periodMs, now);
  }
  expect(await refreshJourneyReports(ch, now)).toBeGreaterThan(0);
  // This hour's events in several batches (unmerged parts), one visitor per batch.
  const continued = firstHourContinued();
  for (const visitor of new Set(continued.map((e) => e.visitor))) await send(continued.filter((e) => e.visitor === visitor));
  // Every first-hour chain answered in process: none sent to windowFunnel, but in the 7-day period the
  // 30-day one's "mixed" visitors (a stored second step without a first, before this hour's batch's
  // first step, and a third step of that batch before it: the state cannot decide).
  expect(await expectExactStored()).toEqual([0, 4]);
  for (const t of ["journey_funnel_states", "journey_funnel_ranges", "journey_event_bundles"] as const) {
    await ch.command(`OPTIMIZE TABLE ${ch.table(t)} FINAL`);
  }
  expect(await expectExactStored()).toEqual([0, 4]);
}, 180_000);

test("batches across the hour's start combine with the whole stored state, or go to windowFunnel when it cannot decide", async () => {
  const at = (minutes: number, i: number) => hour + minutes * MIN + i;
  // Stored hours: two steps before this hour.
  const stored = (v: string, i: number): Ev[] => [
    { visitor: v, type: "page_view", ms: at(-50, i), session: `${v}-stored` },
    { visitor: v, type: "add_to_cart", ms: at(-20, i), session: `${v}-stored` },
  ];
  const kinds: Record<string, (v: string, i: number) => Ev[]> = {
    // A third step before the second one, in a batch across the hour's start: stopped at the first step.
    lower: (v, i) => [
      { visitor: v, type: "purchase", ms: at(-30, i), session: `${v}-across` },
      { visitor: v, type: "page_view", ms: Math.min(now, at(0, i + 10)), session: `${v}-across` },
    ],
    // The last step, before and after the hour's start: level 3.
    raise: (v, i) => [
      { visitor: v, type: "page_view", ms: at(-5, i), session: `${v}-across` },
      { visitor: v, type: "purchase", ms: Math.min(now, at(0, i + 10)), session: `${v}-across` },
    ],
  };
  await send(Object.keys(kinds).flatMap((k) => [0, 1, 2].flatMap((i) => stored(`${k}${i}`, i))));
  // Stored without a first step, an earlier first step in the batch across: from its own t0, the stored
  // second step (after it) counts; and one with a stored second step also before that t0 (undecidable
  // from the state: windowFunnel decides).
  await send([0, 1, 2].map((i) => ({ visitor: `late-t0${i}`, type: "add_to_cart" as const, ms: at(-10, i), session: `late-t0${i}-s` })));
  await send(
    [0, 1, 2].flatMap((i) => [
      { visitor: `before${i}`, type: "add_to_cart" as const, ms: at(-40, i), session: `before${i}-s` },
      { visitor: `before${i}`, type: "add_to_cart" as const, ms: at(-10, i), session: `before${i}-s` },
    ]),
  );
  // Stored entries all before the batch's: combined as consecutive ranges (no lookup).
  await send([0, 1, 2].map((i) => ({ visitor: `apart${i}`, type: "add_to_cart" as const, ms: at(-40, i), session: `apart${i}-s` })));
  await refreshJourneyReports(ch, now);
  await send([
    ...Object.entries(kinds).flatMap(([k, evs]) => [0, 1, 2].flatMap((i) => evs(`${k}${i}`, i))),
    ...[0, 1, 2].flatMap((i) => [
      { visitor: `late-t0${i}`, type: "page_view" as const, ms: at(-30, i), session: `late-t0${i}-a` },
      { visitor: `late-t0${i}`, type: "purchase" as const, ms: Math.min(now, at(0, i + 20)), session: `late-t0${i}-a` },
      { visitor: `before${i}`, type: "page_view" as const, ms: at(-30, i), session: `before${i}-a` },
      { visitor: `before${i}`, type: "purchase" as const, ms: Math.min(now, at(0, i + 20)), session: `before${i}-a` },
      { visitor: `apart${i}`, type: "page_view" as const, ms: at(-30, i), session: `apart${i}-a` },
      { visitor: `apart${i}`, type: "add_to_cart" as const, ms: Math.min(now, at(0, i + 20)), session: `apart${i}-a` },
    ]),
  ]);
  // Only the "before" visitors go to windowFunnel (and the 30-day "mixed" ones in the 7-day period).
  expect(await expectExactStored()).toEqual([3, 7]);
}, 180_000);

test("a late event, an erasure, and entries too many to keep: still windowFunnel's numbers", async () => {
  // A late event into a stored hour of a first-hour visitor: answered from the bundles, then stored again.
  await send([{ visitor: "monly1", type: "purchase", ms: first30() + 3 * DAY }]);
  const range = { accountId: account, linkId: link, fromMs: first30() };
  expect(await countFunnelLevelsStored(ch, range, STEPS, 30 * DAY, now)).toBeNull();
  expect(await countFunnelLevels(ch, range, STEPS, 30 * DAY, now)).toEqual(await reference(range.fromMs, 30 * DAY));
  expect(await refreshJourneyReports(ch, now)).toBeGreaterThan(0);
  expect(await expectExactStored()).toEqual([3, 7]);
  // An erasure of a first-hour visitor's rows (as compared-store.test.ts erases): the range no longer holds.
  for (const [table, where] of [
    ["journey_events", "visitor_id = {v:String}"],
    ["journey_event_bundles", "vh = cityHash64({v:String})"],
  ] as const) {
    await ch.command(`ALTER TABLE ${ch.table(table)} DELETE WHERE ${where} SETTINGS mutations_sync = 2`, { v: "mtwo2" });
  }
  expect(await countFunnelLevelsStored(ch, range, STEPS, 30 * DAY, now)).toBeNull();
  expect(await countFunnelLevels(ch, range, STEPS, 30 * DAY, now)).toEqual(await reference(range.fromMs, 30 * DAY));
  // Stored again with no room for the first-hour entries: their visitors go to windowFunnel, exactly.
  RISKY_ENTRIES.limit = 0;
  expect(await refreshJourneyReports(ch, now)).toBeGreaterThan(0);
  const [month] = await expectExactStored();
  expect(month).toBeGreaterThan(3);
}, 180_000);
