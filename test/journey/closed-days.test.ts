// The journey visitor and converter counts of a link and of an account come from the closed days' stored
// counts (migration 0230) plus today: they must equal the counts of the events sent, for every period,
// after late events land in days already stored, and whatever has been merged. The reports only read:
// the journey job's round (refreshJourneyReports) stores the periods they asked for.
import { beforeAll, expect, test } from "bun:test";
import { countWithClosedDays, WHOLE_ACCOUNT } from "../../server/journey/closed-days-query";
import { refreshJourneyReports } from "../../server/journey/report-cache-job";
import { countFromBundles, countJourneyVisitors } from "../../server/journey/visitors-query";
import type { Clickhouse } from "../../server/storage/clickhouse/client";
import { insertEvents, type SentEvent } from "../conversions/helpers";
import { useClickhouseBefore } from "../helpers/migrated-clickhouse";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const now = Date.now();
const account = crypto.randomUUID();
const shop = crypto.randomUUID();
const blog = crypto.randomUUID();

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

/**
 * `n` sessions over the last `days` days by `visitors` visitors who come back on other days (a few
 * often), on both links, events minutes apart, every seventh session ending in a conversion; some start
 * at the hour boundaries a period starts on.
 */
function sessions(seed: number, n: number, visitors: number, days: number, prefix = "v"): SentEvent[] {
  const r = random(seed);
  const out: SentEvent[] = [];
  for (let s = 0; s < n; s++) {
    const visitor = `${prefix}${Math.floor(r() * r() * visitors)}`;
    const link = r() < 0.7 ? shop : blog;
    const start = s % 11 === 0 ? Math.floor((now - r() * days * DAY) / HOUR) * HOUR : now - r() * days * DAY;
    const len = 1 + Math.floor(r() * 4);
    for (let j = 0; j < len; j++) {
      const ms = Math.min(now - 1000, start + j * 90_000);
      const conversion = s % 7 === 0 && j === len - 1;
      out.push({ link, visitor, type: conversion ? "conversion" : "page_view", ms, device: "mobile", country: "US" });
    }
  }
  return out;
}

const sent: SentEvent[] = [];
const send = async (events: SentEvent[], chunk = 400) => {
  await insertEvents(ch, account, events, chunk);
  sent.push(...events);
};

/** What the events sent give for a period and scope. */
function expected(fromMs: number, links: string[]) {
  const mine = sent.filter((e) => links.includes(e.link) && e.ms >= fromMs);
  return {
    visitors: new Set(mine.map((e) => e.visitor)).size,
    converters: new Set(mine.filter((e) => e.type === "conversion").map((e) => e.visitor)).size,
  };
}

const periodStarts = () => [1, 2, 7, 30, 90].map((days) => Math.floor((now - days * DAY) / HOUR) * HOUR);

const SCOPES = [
  [shop, [shop]],
  [blog, [blog]],
  [WHOLE_ACCOUNT, [shop, blog]],
] as const;

/** What a report answers before the job's round: exact, from the bundles, and nothing written. */
async function expectExactBeforeRound() {
  const before = await storedRows();
  for (const fromMs of periodStarts()) {
    for (const [scope, links] of SCOPES) {
      const counts = await countJourneyVisitors(ch, { accountId: account, fromMs, linkIds: scope === WHOLE_ACCOUNT ? undefined : [scope] });
      expect({ fromMs, scope, ...counts }).toEqual({ fromMs, scope, ...expected(fromMs, [...links]) });
    }
  }
  expect(await storedRows()).toBe(before);
}

/** Every period, for each link and the account, after the job's round: through the closed days (never the fallback), as sent. */
async function expectExact() {
  await expectExactBeforeRound();
  await refreshJourneyReports(ch, now);
  for (const fromMs of periodStarts()) {
    for (const [scope, links] of SCOPES) {
      const want = expected(fromMs, [...links]);
      expect({ fromMs, scope, ...(await countWithClosedDays(ch, { accountId: account, scope, fromMs }, true, now)) }).toEqual({
        fromMs,
        scope,
        ...want,
      });
      const viaReports = await countJourneyVisitors(ch, {
        accountId: account,
        fromMs,
        linkIds: scope === WHOLE_ACCOUNT ? undefined : [scope],
      });
      expect(viaReports).toEqual(
        await countFromBundles(ch, { accountId: account, fromMs, linkIds: scope === WHOLE_ACCOUNT ? undefined : [scope] }),
      );
    }
  }
}

/** Closed-day rows of the account computed at or after `sinceMs` (all of them by default). */
const storedRows = async (sinceMs = 0) =>
  Number(
    (
      await ch.query<{ n: string }>(
        `SELECT count() AS n FROM ${ch.table("journey_closed_days")} WHERE account_id = {a:UUID} AND computed_at >= fromUnixTimestamp64Milli({t:Int64}, 'UTC')`,
        { a: account, t: sinceMs },
      )
    )[0].n,
  );

test("closed days' counts plus today equal the events sent, for every period, link and the account", async () => {
  await send(sessions(1, 3000, 900, 95));
  expect(await storedRows()).toBe(0);
  await expectExact();
  // The counts were taken from stored rows: one per closed day and scope.
  expect(await storedRows()).toBeGreaterThan(90);
}, 120_000);

test("late events into closed days already counted (new visitors, and returning ones that move a visitor's first day) are counted", async () => {
  const before = Date.now();
  // Ten days back: new visitors, and known ones whose next visit now follows this one.
  const tenDaysAgo = Math.floor((now - 10 * DAY) / HOUR) * HOUR + 17 * 60_000;
  const known = [...new Set(sent.filter((e) => e.ms > now - 9 * DAY).map((e) => e.visitor))].slice(0, 40);
  const late: SentEvent[] = [
    ...known.map((visitor, i) => ({
      link: shop,
      visitor,
      type: "page_view" as const,
      ms: tenDaysAgo + i * 1000,
      device: "mobile",
      country: "US",
    })),
    ...Array.from({ length: 25 }, (_, i) => ({
      link: blog,
      visitor: `late${i}`,
      type: (i % 2 ? "conversion" : "page_view") as SentEvent["type"],
      ms: tenDaysAgo + i * 1000,
      device: "mobile",
      country: "US",
    })),
    // And on the first day of the 30-day period, before and after its first hour.
    ...sessions(2, 60, 900, 1).map((e) => ({ ...e, ms: e.ms - 29 * DAY - 12 * HOUR })),
  ];
  await send(late, 37);
  // Before the round: the stored days are stale, and the reports count from the bundles.
  expect(await countWithClosedDays(ch, { accountId: account, scope: shop, fromMs: periodStarts()[3] }, true, now)).toBeNull();
  await expectExact();
  expect(await storedRows(before)).toBeGreaterThan(0);
  // A round with nothing new stores nothing.
  const after = Date.now();
  expect(await refreshJourneyReports(ch, now)).toBe(0);
  expect(await storedRows(after)).toBe(0);
}, 120_000);

test("the counts do not depend on what ClickHouse has merged", async () => {
  await send(sessions(3, 300, 900, 3, "w"));
  await expectExact();
  await ch.command(`OPTIMIZE TABLE ${ch.table("journey_closed_days")} FINAL`);
  await ch.command(`OPTIMIZE TABLE ${ch.table("journey_event_bundles")} FINAL`);
  await expectExact();
}, 120_000);

test("visitors of the open hour and of today's closed hours are counted once, also those who came before", async () => {
  const openHour = Math.floor(now / HOUR) * HOUR;
  const todayStart = Math.floor(now / DAY) * DAY;
  const known = [...new Set(sent.map((e) => e.visitor))].slice(0, 60);
  const r = random(4);
  const event = (visitor: string, ms: number, i: number): SentEvent => ({
    link: i % 3 ? shop : blog,
    visitor,
    type: i % 4 ? "page_view" : "conversion",
    ms,
    device: "mobile",
    country: "US",
  });
  await send([
    ...known.map((v, i) => event(v, openHour + Math.floor(r() * (now - openHour)), i)),
    ...Array.from({ length: 30 }, (_, i) => event(`open${i}`, openHour + Math.floor(r() * (now - openHour)), i)),
    ...known.slice(0, 30).map((v, i) => event(v, todayStart + Math.floor(r() * (openHour - todayStart)), i + 1)),
  ]);
  await expectExact();
}, 120_000);
