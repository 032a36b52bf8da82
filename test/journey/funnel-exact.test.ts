// The funnel report (server/journey/funnel-query.ts) against its definition: ClickHouse windowFunnel
// in strict_order mode over the raw events of the period that match some step, for random events
// (ties on the same millisecond, events matching several steps, events without a session, sessions
// split across batches, events before the period and up to a day ahead) and random steps.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { getJourneyFunnel, type LinkRange } from "../../server/journey/queries";
import { createTestApp, type TestApp } from "../helpers/app";
import { insertLink, postEvents } from "./helpers";

let t: TestApp;
let link: string;
let accountId: string;

const HOUR = 3_600_000;
const NOW = Date.now();
const FROM = Math.floor((NOW - 24 * HOUR) / HOUR) * HOUR; // the 24h period's start
const WINDOW_S = 24 * 3600;
const TYPES = ["page_view", "scroll_depth", "time_on_page", "custom", "conversion"];
const NAMES = ["", "signup", "add_to_cart", "purchase", "/p/a"];
const URLS = ["/p/a", "/p/b", "/p/c", "signup"];

function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}
const rnd = random(20260601);
const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];

interface Ev {
  visitor_id: string;
  session_id?: string;
  event_type: string;
  event_name?: string;
  page_url: string;
  at: number;
}
const at = (ms: number) => new Date(ms).toISOString();

function randomEvents(): Ev[] {
  const events: Ev[] = [];
  for (let v = 0; v < 400; v++) {
    const sessions = 1 + Math.floor(rnd() * 3);
    for (let s = 0; s < sessions; s++) {
      // From 2 h before the period to 23 h ahead, often on whole seconds so that events tie.
      let time = FROM - 2 * HOUR + Math.floor(rnd() * 48 * HOUR);
      const session = rnd() < 0.15 ? undefined : `v${v}s${s}`;
      for (let i = 0, n = 1 + Math.floor(rnd() * 7); i < n; i++) {
        if (rnd() > 0.2) time += Math.floor(rnd() * 600) * 1000;
        const type = pick(TYPES);
        events.push({
          visitor_id: `v${v}`,
          session_id: session,
          event_type: type,
          event_name: pick(NAMES) || undefined,
          page_url: pick(URLS),
          at: Math.min(time, NOW + 23 * HOUR),
        });
      }
    }
  }
  // Chains just longer than the window (w*) and just shorter (x*): a first step in the period's first
  // minutes, the next a day later.
  for (let v = 0; v < 7; v++) {
    const first = FROM + 60_000 * (v + 1);
    const gap = 24 * HOUR + (v < 5 ? 60_000 * (v + 1) : -60_000);
    events.push({ visitor_id: `w${v}`, event_type: "page_view", page_url: "/p/a", at: first });
    events.push({ visitor_id: `w${v}`, event_type: "custom", event_name: "signup", page_url: "/p/b", at: first + gap });
  }
  return events;
}

beforeAll(async () => {
  t = await createTestApp();
  const acc = await t.createAccount();
  accountId = acc.accountId;
  link = await insertLink(t, acc.accountId);
  const events = randomEvents().sort(() => rnd() - 0.5);
  // Several batches flushed apart: sessions and visitors end up in several bundles.
  for (let i = 0; i < events.length; i += 100) {
    const batch = events.slice(i, i + 100).map(({ at: ms, ...e }) => ({ ...e, link_id: link, timestamp: at(ms) }));
    expect((await postEvents(t, acc.key, batch)).status).toBe(202);
    if (i % 500 === 0) await t.flush();
  }
  await t.flush();
}, 120_000);
afterAll(() => t.close());

/** The definition: windowFunnel over the period's raw events that match a step, per visitor. */
async function reference(range: LinkRange, steps: string[], windowSeconds: number) {
  const ch = t.runtime.deps.ch;
  const p: Record<string, unknown> = { account: range.accountId, link: range.linkId, from: range.fromMs, window: windowSeconds * 1000 };
  const conditions = steps.map((step, i) => {
    p[`s${i}`] = step;
    return `(event_name = {s${i}:String} OR event_type = {s${i}:String} OR (event_type = 'page_view' AND page_url = {s${i}:String}))`;
  });
  const levels = await ch.query<{ level: number; n: string }>(
    `
    SELECT level, count() AS n FROM (
      SELECT windowFunnel({window:UInt64}, 'strict_order')(toUInt64(toUnixTimestamp64Milli(timestamp)), ${conditions.join(", ")}) AS level
      FROM ${ch.table("journey_events")}
      WHERE account_id = {account:UUID} AND link_id = {link:UUID} AND timestamp >= fromUnixTimestamp64Milli({from:Int64}, 'UTC')
        AND (${conditions.join(" OR ")})
      GROUP BY visitor_id) GROUP BY level`,
    p,
  );
  const reached = steps.map(() => 0);
  for (const { level, n } of levels) for (let i = 0; i < Number(level); i++) reached[i] += Number(n);
  return reached;
}

/** Every visitor with an event in the period, exactly. */
async function visitorsSince(fromMs: number) {
  const [row] = await t.runtime.deps.ch.query<{ n: string }>(
    `SELECT uniqExact(visitor_id) AS n FROM ${t.runtime.deps.ch.table("journey_events")}
    WHERE account_id = {account:UUID} AND link_id = {link:UUID} AND timestamp >= fromUnixTimestamp64Milli({from:Int64}, 'UTC')`,
    { account: accountId, link, from: fromMs },
  );
  return Number(row.n);
}

const STEP_POOL = [...TYPES, ...NAMES.filter(Boolean), ...URLS, "nothing"];

test("random funnels count the visitors windowFunnel counts, with a window that cuts some chains", async () => {
  const ch = t.runtime.deps.ch;
  let cut = 0;
  for (const [period, windowSeconds, fromMs] of [
    ["24h", WINDOW_S, FROM],
    ["7d", 7 * WINDOW_S, FROM - 6 * 24 * HOUR],
  ] as const) {
    const range = { accountId, linkId: link, fromMs };
    for (let i = 0; i < 40; i++) {
      const steps = Array.from({ length: 1 + Math.floor(rnd() * 5) }, () => pick(STEP_POOL));
      const expected = await reference(range, steps, windowSeconds);
      const { reached, totalVisitors } = await getJourneyFunnel(ch, range, steps, windowSeconds);
      expect({ period, steps, reached, totalVisitors }).toEqual({
        period,
        steps,
        reached: expected,
        totalVisitors: await visitorsSince(fromMs),
      });
    }
    // The window-crossing visitors reach step 2 only when the window is long enough.
    const steps = ["/p/a", "signup"];
    const { reached } = await getJourneyFunnel(ch, range, steps, windowSeconds);
    expect(reached).toEqual(await reference(range, steps, windowSeconds));
    if (period === "24h") cut = (await reference(range, steps, 10 * windowSeconds))[1] - reached[1];
  }
  expect(cut).toBeGreaterThanOrEqual(5);
}, 120_000);
