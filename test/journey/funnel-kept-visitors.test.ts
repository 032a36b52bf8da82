// The stored funnel's lookup of the current hour's visitors, kept in memory (funnel-cache-query.ts
// RangeVisitors): a stored range's visitors are read once, and a call corrects only the visitors whose
// level the current hour can change. The answers stay windowFunnel's over the raw events (computed here
// apart from the code under test) for each kind of visitor: new, stored without a first step, stored
// below the last step with the next still open, stopped by a later step, at the last step; with a batch
// across the hour's start, events dated ahead, a late event into a stored hour, and merged parts; through
// the memory and through the lookup in ClickHouse that a range too large to keep takes.
import { afterEach, beforeAll, expect, test } from "bun:test";
import { insertJourneyRows } from "../../server/ingest/journey/repository";
import { toJourneyRow } from "../../server/ingest/journey/rows";
import { countFunnelLevelsStored, KEPT_LIMIT, periodFromMs } from "../../server/journey/funnel-cache-query";
import { countFunnelLevels } from "../../server/journey/funnel-query";
import { refreshJourneyReports } from "../../server/journey/report-cache-job";
import type { Clickhouse } from "../../server/storage/clickhouse/client";
import { chTime } from "../../server/storage/clickhouse/format";
import { useClickhouseBefore } from "../helpers/migrated-clickhouse";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const now = Date.now();
const hour = Math.floor(now / HOUR) * HOUR;
const account = crypto.randomUUID();
const link = crypto.randomUUID();
const STEPS = ["page_view", "add_to_cart", "purchase"];
const PERIOD = 30 * DAY;
const fromMs = periodFromMs(PERIOD, now);
const range = { accountId: account, linkId: link, fromMs };
const db = useClickhouseBefore(100_000);
let ch: Clickhouse;
beforeAll(() => {
  ch = db.ch;
});

interface Ev {
  visitor: string;
  type: "page_view" | "add_to_cart" | "purchase";
  ms: number;
  /** The session; by default one per visitor and hour. */
  session?: string;
}

async function send(evs: Ev[]) {
  for (let i = 0; i < evs.length; i += 5000) {
    const receivedMs = Date.now();
    const rows = evs.slice(i, i + 5000).map(({ visitor, type, ms, session }) =>
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
}

/** The definition, computed apart from the code under test: windowFunnel over the raw events, and every visitor. */
async function reference() {
  const p = { account, link, from: fromMs, window: PERIOD };
  const cond = [
    "event_type = 'page_view'",
    "event_name = 'add_to_cart' OR event_type = 'add_to_cart'",
    "event_name = 'purchase' OR event_type = 'purchase'",
  ];
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

/** 3,000 visitors over 40 days, each a few sessions; deterministic. */
function history(): Ev[] {
  const out: Ev[] = [];
  for (let v = 0; v < 3000; v++) {
    for (let s = 0; s < 1 + (v % 3); s++) {
      let ms = hour - 40 * DAY + (((v * 7919 + s * 104_729) % 9973) / 9973) * 40 * DAY;
      out.push({ visitor: `v${v}`, type: "page_view", ms });
      if ((v + s) % 3 === 0) out.push({ visitor: `v${v}`, type: "add_to_cart", ms: (ms += 60_000) });
      if ((v + s) % 7 === 0) out.push({ visitor: `v${v}`, type: "purchase", ms: (ms += 60_000) });
    }
  }
  return out;
}

const defaultLimit = KEPT_LIMIT.visitors;
afterEach(() => {
  KEPT_LIMIT.visitors = defaultLimit;
});

/** The report's levels through the stored range (asserted), against the reference. */
async function expectExactStored() {
  expect(await countFunnelLevelsStored(ch, range, STEPS, PERIOD, now)).not.toBeNull();
  expect(await countFunnelLevels(ch, range, STEPS, PERIOD, now)).toEqual(await reference());
}

/** Per kind of stored visitor, a few, each with its stored-hours events (before the current hour). */
const stored: Record<string, (v: string, i: number) => Ev[]> = {
  // No first step: level 0, stored.
  noFirst: (v, i) => [{ visitor: v, type: "add_to_cart", ms: hour - 3 * DAY + i }],
  // A first step, the next one still to come: level 1, open.
  open1: (v, i) => [{ visitor: v, type: "page_view", ms: hour - 2 * DAY + i }],
  // Two steps, the last to come: level 2, open.
  open2: (v, i) => [
    { visitor: v, type: "page_view", ms: hour - 5 * DAY + i },
    { visitor: v, type: "add_to_cart", ms: hour - 4 * DAY + i },
  ],
  // A first step, then the third before the second: stopped at level 1.
  stopped: (v, i) => [
    { visitor: v, type: "page_view", ms: hour - 6 * DAY + i },
    { visitor: v, type: "purchase", ms: hour - 6 * DAY + 60_000 + i },
  ],
  // Every step: level 3.
  done: (v, i) => [
    { visitor: v, type: "page_view", ms: hour - 7 * DAY + i },
    { visitor: v, type: "add_to_cart", ms: hour - 7 * DAY + 60_000 + i },
    { visitor: v, type: "purchase", ms: hour - 7 * DAY + 120_000 + i },
  ],
};
/** What each visitor does in the current hour: the rest of the chain, in order, and a first step again. */
const inHour = (v: string, i: number): Ev[] => [
  { visitor: v, type: "page_view", ms: hour + 10 + i },
  { visitor: v, type: "add_to_cart", ms: hour + 20 + i },
  { visitor: v, type: "purchase", ms: Math.min(now, hour + 30 + i) },
];
const visitorsOf = (kind: string) => Array.from({ length: 5 }, (_, i) => `${kind}${i}`);

test("every kind of stored visitor, continued in the current hour, counts as windowFunnel counts it", async () => {
  await send([...history(), ...Object.entries(stored).flatMap(([kind, evs]) => visitorsOf(kind).flatMap(evs))]);
  expect(await countFunnelLevels(ch, range, STEPS, PERIOD, now)).toEqual(await reference());
  expect(await refreshJourneyReports(ch, now)).toBeGreaterThan(0);
  await expectExactStored();
  // The current hour: each stored kind continues; new visitors start; one dated ahead; one only views.
  await send([
    ...Object.keys(stored).flatMap((kind) => visitorsOf(kind).flatMap(inHour)),
    ...visitorsOf("new").flatMap(inHour),
    { visitor: "ahead", type: "page_view", ms: now + 6 * HOUR },
    { visitor: "ahead", type: "add_to_cart", ms: now + 7 * HOUR },
    { visitor: "v5", type: "page_view", ms: hour + 5 },
  ]);
  await expectExactStored();
}, 180_000);

test("the same through the lookup in ClickHouse, for a range too large to keep", async () => {
  KEPT_LIMIT.visitors = 100;
  // A round that stores nothing new: the range is read again on the next call, not from memory.
  await send([{ visitor: "v9", type: "add_to_cart", ms: hour - 9 * DAY }]);
  expect(await countFunnelLevelsStored(ch, range, STEPS, PERIOD, now)).toBeNull();
  expect(await refreshJourneyReports(ch, now)).toBeGreaterThan(0);
  await expectExactStored();
}, 180_000);

test("a batch across the hour's start, a late event and merged parts: exact, and no call reads the states again", async () => {
  // A bundle ending in the current hour with events of the stored hours, of a stored visitor.
  await send([
    { visitor: "open1_0", type: "add_to_cart", ms: hour - 10 * 60_000, session: "across" },
    { visitor: "open1_0", type: "purchase", ms: hour + 40, session: "across" },
  ]);
  await expectExactStored();
  // A late event into a stored hour: stale, answered from the bundles, stored again by the next round.
  await send([{ visitor: "stopped0", type: "add_to_cart", ms: hour - 6 * DAY + 30_000 }]);
  expect(await countFunnelLevelsStored(ch, range, STEPS, PERIOD, now)).toBeNull();
  expect(await countFunnelLevels(ch, range, STEPS, PERIOD, now)).toEqual(await reference());
  expect(await refreshJourneyReports(ch, now)).toBeGreaterThan(0);
  for (const t of ["journey_funnel_states", "journey_funnel_ranges", "journey_event_bundles"] as const) {
    await ch.command(`OPTIMIZE TABLE ${ch.table(t)} FINAL`);
  }
  await expectExactStored();
  // The range's visitors are in memory since the round: calls read journey_funnel_states only for the
  // visitors with a batch across the hour's start (here found in none: windowFunnel counts them).
  await ch.command(`TRUNCATE TABLE ${ch.table("journey_funnel_states")}`);
  await send([{ visitor: "open2_1", type: "purchase", ms: Math.min(now, hour + 50) }]);
  await expectExactStored();
}, 180_000);
