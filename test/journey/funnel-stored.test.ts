// The funnel from the closed hours' stored per-visitor states (migration 0250, funnel-cache-query.ts) plus
// the current hour: it must give windowFunnel's numbers over the raw events, for 7-, 30- and 90-day
// periods, after late events land in stored hours, and whatever has been merged. Reports only
// read: the states are written by the journey job's round.
import { beforeAll, expect, test } from "bun:test";
import { insertJourneyRows } from "../../server/ingest/journey/repository";
import { toJourneyRow } from "../../server/ingest/journey/rows";
import { countFunnelLevelsStored, periodFromMs } from "../../server/journey/funnel-cache-query";
import { countFunnelLevels } from "../../server/journey/funnel-query";
import { refreshJourneyReports } from "../../server/journey/report-cache-job";
import type { Clickhouse } from "../../server/storage/clickhouse/client";
import { chTime } from "../../server/storage/clickhouse/format";
import { useClickhouseBefore } from "../helpers/migrated-clickhouse";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const now = Date.now();
const account = crypto.randomUUID();
const link = crypto.randomUUID();
const db = useClickhouseBefore(100_000);
let ch: Clickhouse;
beforeAll(() => {
  ch = db.ch;
});

function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}
const rnd = random(20261129);
const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
const TYPES = ["page_view", "page_view", "scroll_depth", "custom", "conversion"];
const NAMES = ["", "signup", "add_to_cart", "purchase"];
const URLS = ["/p/a", "/p/b", "signup"];

interface Ev {
  visitor_id: string;
  event_type: string;
  event_name?: string;
  page_url: string;
  ms: number;
  /** The session id; by default one per visitor and hour. */
  session?: string;
}

/** Visitors coming back over `days` days, sessions of a few events minutes apart, some dated up to a day ahead. */
function events(seed: string, visitors: number, sessions: number, days: number, startMs = now - days * DAY): Ev[] {
  const out: Ev[] = [];
  for (let s = 0; s < sessions; s++) {
    const visitor = `${seed}${Math.floor(rnd() * rnd() * visitors)}`;
    let ms = startMs + Math.floor(rnd() * (now - startMs + (rnd() < 0.02 ? 20 * HOUR : 0)));
    for (let i = 0, n = 1 + Math.floor(rnd() * 6); i < n; i++) {
      if (rnd() > 0.2) ms += Math.floor(rnd() * 600) * 1000;
      out.push({ visitor_id: visitor, event_type: pick(TYPES), event_name: pick(NAMES) || undefined, page_url: pick(URLS), ms });
    }
  }
  return out;
}

async function send(evs: Ev[], chunk = 300) {
  for (let i = 0; i < evs.length; i += chunk) {
    const receivedMs = Date.now();
    const rows = evs.slice(i, i + chunk).map(({ ms, session, ...e }) =>
      toJourneyRow(crypto.randomUUID(), receivedMs, chTime(receivedMs), account, {
        ...e,
        link_id: link,
        session_id: session ?? `s-${e.visitor_id}-${Math.floor(ms / HOUR)}`,
        timestamp: new Date(ms).toISOString(),
      }),
    );
    await insertJourneyRows(ch, Buffer.from(rows.map((r) => JSON.stringify(r)).join("\n")), rows.length, crypto.randomUUID());
  }
}

/** The definition: windowFunnel over the period's raw events that match a step, and every visitor. */
async function reference(fromMs: number, steps: string[], windowMs: number) {
  const p: Record<string, unknown> = { account, link, from: fromMs, window: windowMs };
  const conditions = steps.map((step, i) => {
    p[`s${i}`] = step;
    return `(event_name = {s${i}:String} OR event_type = {s${i}:String} OR (event_type = 'page_view' AND page_url = {s${i}:String}))`;
  });
  const scope = "account_id = {account:UUID} AND link_id = {link:UUID} AND timestamp >= fromUnixTimestamp64Milli({from:Int64}, 'UTC')";
  const levels = await ch.query<{ level: number; n: string }>(
    `SELECT level, count() AS n FROM (
      SELECT windowFunnel({window:UInt64}, 'strict_order')(toUInt64(toUnixTimestamp64Milli(timestamp)), ${conditions.join(", ")}) AS level
      FROM ${ch.table("journey_events")} WHERE ${scope} AND (${conditions.join(" OR ")}) GROUP BY visitor_id) GROUP BY level`,
    p,
  );
  const [{ n }] = await ch.query<{ n: string }>(`SELECT uniqExact(visitor_id) AS n FROM ${ch.table("journey_events")} WHERE ${scope}`, p);
  const byLevel = steps.map(() => 0).concat(0);
  for (const l of levels) byLevel[Number(l.level)] += Number(l.n);
  byLevel[0] += Number(n) - byLevel.reduce((a, b) => a + b, 0);
  return byLevel;
}

const FUNNELS = [
  ["page_view", "add_to_cart", "purchase"],
  ["/p/a", "signup"],
  ["custom", "conversion", "page_view", "scroll_depth"],
  ["page_view"],
];
const PERIODS = [7, 30, 90].map((d) => d * DAY);

/** Every funnel and period: the report's levels equal windowFunnel's; `stored`: through the stored states. */
async function expectExact(stored: boolean) {
  for (const periodMs of PERIODS) {
    const fromMs = periodFromMs(periodMs, now);
    for (const steps of FUNNELS) {
      const want = await reference(fromMs, steps, periodMs);
      const r = { accountId: account, linkId: link, fromMs };
      expect({ stored, periodMs, steps, levels: await countFunnelLevels(ch, r, steps, periodMs, now) }).toEqual({
        stored,
        periodMs,
        steps,
        levels: want,
      });
      const viaStates = await countFunnelLevelsStored(ch, r, steps, periodMs, now);
      expect({ periodMs, steps, stored: viaStates !== null }).toEqual({ periodMs, steps, stored });
    }
  }
}

const storedRanges = async () =>
  Number(
    (
      await ch.query<{ n: string }>(`SELECT count() AS n FROM ${ch.table("journey_funnel_ranges")} WHERE account_id = {a:UUID}`, {
        a: account,
      })
    )[0].n,
  );

test("a funnel through the stored states of closed days equals windowFunnel over the raw events", async () => {
  await send(events("v", 700, 2500, 95));
  // Chains across the open ends: a first step on the 30-day period's first day, the next today.
  const first = periodFromMs(30 * DAY, now) + 10 * 60_000;
  await send(
    Array.from({ length: 20 }, (_, i) => [
      { visitor_id: `x${i}`, event_type: "page_view", page_url: "/p/a", ms: first + i * 1000 },
      { visitor_id: `x${i}`, event_type: "custom", event_name: "add_to_cart", page_url: "/p/b", ms: now - 20 * DAY },
      { visitor_id: `x${i}`, event_type: "conversion", event_name: "purchase", page_url: "/p/b", ms: now - (i % 2 ? 60_000 : 2 * DAY) },
    ]).flat(),
  );
  // Asked first: answered from the bundles, nothing written by the report.
  await expectExact(false);
  expect(await storedRanges()).toBe(0);
  // The job stores what was asked; the same answers then come from the states.
  expect(await refreshJourneyReports(ch, now)).toBeGreaterThan(0);
  expect(await storedRanges()).toBe(FUNNELS.length * PERIODS.length);
  await expectExact(true);
}, 180_000);

test("late events into stored days are counted at once, and stored again by the next round", async () => {
  await send(
    events("v", 700, 150, 12, now - 12 * DAY).map((e) => ({ ...e, ms: Math.min(e.ms, now - 3 * DAY) })),
    37,
  );
  await send(
    events("late", 50, 60, 40, now - 40 * DAY).map((e) => ({ ...e, ms: Math.min(e.ms, now - 2 * DAY) })),
    37,
  );
  await expectExact(false);
  await refreshJourneyReports(ch, now);
  await expectExact(true);
  // A round with nothing new stores nothing.
  expect(await refreshJourneyReports(ch, now)).toBe(0);
}, 180_000);

test("visitors of the current hour combine with their stored state, whatever ClickHouse has merged", async () => {
  // Chains that the 30-day window cuts: a first step in the period's first minute (stored), the next in
  // the current hour, more than 30 days later (sent through windowFunnel itself).
  const start30 = periodFromMs(30 * DAY, now);
  await send(
    Array.from({ length: 5 }, (_, i) => ({ visitor_id: `z${i}`, event_type: "page_view", page_url: "/p/a", ms: start30 + 1000 * i })),
  );
  await send(events("w", 100, 200, 1, now - 2 * HOUR));
  await refreshJourneyReports(ch, now);
  // Known visitors, and new ones, in the current hour: their steps continue chains of the stored hours.
  const hour = Math.floor(now / HOUR) * HOUR;
  const known = ["v1", "v2", "v3", "v5", "v8", "v13", "v21", "v34", "x1", "x2", "w3"];
  await send(
    [...known, "new1", "new2", "z0", "z1", "z2", "z3", "z4"].flatMap((visitor_id, i) => [
      { visitor_id, event_type: "custom", event_name: "add_to_cart", page_url: "/p/b", ms: hour + Math.floor(((now - hour) * i) / 40) },
      {
        visitor_id,
        event_type: "conversion",
        event_name: "purchase",
        page_url: "/p/b",
        ms: hour + Math.floor(((now - hour) * (i + 1)) / 20),
      },
    ]),
  );
  await expectExact(true);
  // The z chains (first steps in the stored range's first hour) were counted in this process from their
  // kept entries (window-funnel.ts), not sent to windowFunnel.
  const viaStates = await countFunnelLevelsStored(ch, { accountId: account, linkId: link, fromMs: start30 }, FUNNELS[0], 30 * DAY, now);
  const [{ z }] = await ch.query<{ z: string[] }>("SELECT arrayMap(i -> toString(cityHash64(concat('z', toString(i)))), range(5)) AS z");
  expect(viaStates?.fallback.filter((vh) => z.includes(vh))).toEqual([]);
  for (const t of ["journey_funnel_states", "journey_funnel_ranges", "journey_event_bundles"] as const) {
    await ch.command(`OPTIMIZE TABLE ${ch.table(t)} FINAL`);
  }
  await expectExact(true);
}, 180_000);

test("a batch across the hour's start that reaches before a stored state's first step counts from its own", async () => {
  // A bundle (one batch's events of one session) that ends in the current hour can hold events of the
  // stored hours, earlier than the steps stored for the same visitor: here a first step at -30 min in it,
  // while the stored hours (another session, sent in its own batch) hold a second step at -20 min and a
  // first step at -10 min. From -30 min: steps 1, 2 and then 3 in the current hour.
  const hour = Math.floor(now / HOUR) * HOUR;
  const at = (minutes: number) => hour + minutes * 60_000;
  for (let i = 0; i < 3; i++) {
    const visitor_id = `across${i}`;
    await send([
      { visitor_id, event_type: "custom", event_name: "add_to_cart", page_url: "/p/b", ms: at(-20) + i, session: `${visitor_id}-b` },
      { visitor_id, event_type: "page_view", page_url: "/p/a", ms: at(-10) + i, session: `${visitor_id}-b` },
    ]);
  }
  await refreshJourneyReports(ch, now);
  await send(
    [0, 1, 2].flatMap((i) => [
      { visitor_id: `across${i}`, event_type: "page_view", page_url: "/p/a", ms: at(-30) + i, session: `across${i}-a` },
      {
        visitor_id: `across${i}`,
        event_type: "conversion",
        event_name: "purchase",
        page_url: "/p/b",
        ms: at(0) + i,
        session: `across${i}-a`,
      },
    ]),
  );
  await expectExact(true);
}, 180_000);
