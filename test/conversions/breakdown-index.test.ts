// The device and country breakdowns from their in-memory index (server/conversions/breakdown-index.ts):
// every row must equal what the events sent give (computed here from them, test/conversions/helpers.ts),
// for periods of 1 to 90 days, the whole account and one link — with the open hour's events and events
// dated ahead (the index answers), and late events into indexed days, a batch across the hour's start
// and an erasure with late events at once (the index stops answering until the job loads it again; the
// breakdown stays exact meanwhile), and before and after OPTIMIZE … FINAL (unmerged parts).
import { beforeAll, expect, test } from "bun:test";
import { indexedBreakdown, refreshBreakdownIndex } from "../../server/conversions/breakdown-index";
import { getConversionBreakdown, type Scope } from "../../server/conversions/queries";
import { refreshJourneyReports } from "../../server/journey/report-cache-job";
import type { Clickhouse } from "../../server/storage/clickhouse/client";
import { useClickhouseBefore } from "../helpers/migrated-clickhouse";
import { expectedBreakdown, insertEvents, type SentEvent } from "./helpers";

const MIN = 60_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const now = Date.now();
const openHour = Math.floor(now / HOUR) * HOUR;
const account = crypto.randomUUID();
const shop = crypto.randomUUID();
const blog = crypto.randomUUID();
const DEVICES = ["mobile", "desktop", "tablet", ""];
const COUNTRIES = ["US", "DE", "FR"];

const db = useClickhouseBefore(100_000);
let ch: Clickhouse;
beforeAll(() => {
  ch = db.ch;
});

const sent: SentEvent[] = [];
async function send(events: SentEvent[], chunk = events.length) {
  await insertEvents(ch, account, events, chunk);
  sent.push(...events);
}

function random(seed: number) {
  let x = seed;
  return () => {
    x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
    return x / 2_147_483_648;
  };
}

/** `n` visits over the last `days` days (before the open hour): a page view, sometimes a conversion; visitors come back. */
function visits(seed: number, n: number, days: number, prefix: string): SentEvent[] {
  const r = random(seed);
  const out: SentEvent[] = [];
  for (let i = 0; i < n; i++) {
    const visitor = `${prefix}${Math.floor(r() * r() * n * 0.4)}`;
    const base = {
      link: r() < 0.7 ? shop : blog,
      visitor,
      device: DEVICES[Math.floor(r() * DEVICES.length)],
      country: COUNTRIES[Math.floor(r() * COUNTRIES.length)],
    };
    const ms = Math.floor(openHour - MIN - r() * days * DAY);
    out.push({ ...base, type: "page_view", ms });
    if (r() < 0.3) out.push({ ...base, type: "conversion", ms: ms + 30_000, conversion_name: "order", revenue_cents: 100 + i });
  }
  return out;
}

const periodStarts = () => [1, 7, 30, 90].map((days) => Math.floor((Date.now() - days * DAY) / HOUR) * HOUR);
const scopes = [
  [null, [shop, blog]],
  [shop, [shop]],
] as const;

/** Every breakdown of every period and scope as sent; `indexed`: whether the index must have answered. */
async function expectExact(indexed: boolean) {
  for (const h of periodStarts()) {
    for (const [link, links] of scopes) {
      for (const dimension of ["device", "country"] as const) {
        const want = expectedBreakdown(
          sent.filter((e) => e.ms >= h),
          [...links],
          dimension,
        );
        const answered = await indexedBreakdown(ch, { accountId: account, linkId: link }, dimension, h);
        if (indexed) {
          expect(answered).not.toBeNull();
          expect({ h, link, dimension, rows: sortRows(answered ?? []) }).toEqual({ h, link, dimension, rows: want });
        } else expect(answered).toBeNull();
        const scope: Scope = { accountId: account, fromMs: h, ...(link ? { linkIds: [link] } : {}) };
        expect({ h, link, dimension, rows: await getConversionBreakdown(ch, scope, dimension) }).toEqual({
          h,
          link,
          dimension,
          rows: want,
        });
      }
    }
  }
}
const sortRows = <R extends { conversions: number; label: string }>(rows: R[]) =>
  [...rows].sort((a, b) => b.conversions - a.conversions || (a.label < b.label ? -1 : 1));

test("the index answers exactly once loaded, with the open hour's events and events dated ahead", async () => {
  await send(visits(1, 3000, 95, "v"), 700);
  // Not loaded yet: the exact query answers (and the demand is noted).
  await expectExact(false);
  await refreshJourneyReports(ch);
  await expectExact(true);
  // The open hour and events dated ahead, some of visitors already indexed: the index still answers.
  const r = random(7);
  const open: SentEvent[] = [];
  for (let i = 0; i < 60; i++) {
    const visitor = i % 2 ? `v${i}` : `new${i}`;
    const base = { link: i % 3 ? shop : blog, visitor, device: DEVICES[i % 4], country: COUNTRIES[i % 3] };
    const ms = i % 10 === 0 ? openHour + DAY + i * MIN : openHour + Math.floor(r() * (now - openHour));
    open.push({ ...base, type: "page_view", ms });
    if (i % 4 === 0) open.push({ ...base, type: "conversion", ms: ms + 1000, revenue_cents: 5 });
  }
  await send(open, 25);
  await expectExact(true);
}, 120_000);

test("a late event into an indexed day, and a batch across the hour's start, stop the index until the job loads it", async () => {
  // A converter of 3 days ago on a device they never used, and a visitor seen before 30 days only now again.
  await send([
    { link: shop, visitor: "v1", device: "tablet", country: "FR", type: "conversion", ms: openHour - 3 * DAY, revenue_cents: 7 },
    { link: blog, visitor: "late-new", device: "mobile", country: "DE", type: "page_view", ms: openHour - 40 * DAY },
  ]);
  await expectExact(false);
  await refreshJourneyReports(ch);
  await expectExact(true);
  // One batch, one visitor and session: events of the last closed hour and of the open one (a bundle that
  // ends in the open hour holds an event of the indexed hours).
  await send([
    { link: shop, visitor: "across", device: "desktop", country: "US", type: "conversion", ms: openHour - 5 * MIN, revenue_cents: 11 },
    { link: shop, visitor: "across", device: "mobile", country: "US", type: "page_view", ms: Math.max(openHour, now - MIN) },
  ]);
  await expectExact(false);
  await refreshJourneyReports(ch);
  await expectExact(true);
}, 120_000);

test("unmerged parts and OPTIMIZE … FINAL change no figure, and an erasure with late events at once stops the index", async () => {
  await expectExact(true);
  for (const table of ["journey_events", "journey_event_bundles", "journey_dims_hourly"] as const)
    await ch.command(`OPTIMIZE TABLE ${ch.table(table)} FINAL`);
  await expectExact(true);
  // Erase a converter (their events and bundles, as an erasure does) and add a late batch of one bundle.
  const erased = sent.find((e) => e.type === "conversion" && e.ms < openHour - 2 * DAY && e.link === shop)?.visitor as string;
  for (const [table, where] of [
    ["journey_events", "visitor_id = {v:String}"],
    ["journey_event_bundles", "vh = cityHash64({v:String})"],
  ] as const) {
    await ch.command(`ALTER TABLE ${ch.table(table)} DELETE WHERE ${where} SETTINGS mutations_sync = 2`, { v: erased });
  }
  // The rollups keep an erased visitor's sets (they are not rewritten), so the expected rows are those
  // of the raw events only where they can be: the index must not answer.
  sent.splice(0, sent.length, ...sent.filter((e) => e.visitor !== erased));
  await send([{ link: shop, visitor: "late2", device: "mobile", country: "US", type: "page_view", ms: openHour - 4 * DAY }]);
  for (const dimension of ["device", "country"] as const) {
    expect(await indexedBreakdown(ch, { accountId: account, linkId: null }, dimension, periodStarts()[2])).toBeNull();
  }
  await refreshJourneyReports(ch);
  const answered = await indexedBreakdown(ch, { accountId: account, linkId: null }, "device", periodStarts()[2]);
  expect(answered).not.toBeNull();
  // Visitors and converters come from the events (the erased visitor is gone from them).
  const want = expectedBreakdown(
    sent.filter((e) => e.ms >= periodStarts()[2]),
    [shop, blog],
    "device",
  );
  const got = new Map((answered ?? []).map((r) => [r.label, [r.visitors, r.converters]]));
  expect(want.map((r) => [r.label, got.get(r.label)])).toEqual(want.map((r) => [r.label, [r.visitors, r.converters]]));
  expect(want.length).toBeGreaterThan(2);
}, 120_000);

test("an index of an earlier hour takes in the hours closed since, unless something before its hour changed", async () => {
  const scope = { accountId: account, linkId: shop };
  const h = periodStarts()[1];
  const want = () =>
    expectedBreakdown(
      sent.filter((e) => e.ms >= h),
      [shop],
      "device",
    );
  // Loaded at an hour 5 hours back: the hours since are its open part.
  await refreshBreakdownIndex(ch, scope, "device", now - 5 * HOUR);
  expect(sortRows((await indexedBreakdown(ch, scope, "device", h)) ?? [])).toEqual(want());
  // Events of those hours (one of a visitor indexed on the same device before the period), then brought
  // to the open hour (merged).
  const old = sent.find(
    (e) => e.link === shop && e.device === "mobile" && !sent.some((x) => x.visitor === e.visitor && x.ms >= h),
  ) as SentEvent;
  await send([
    { ...old, type: "conversion", ms: openHour - 2 * HOUR, revenue_cents: 4 },
    { link: shop, visitor: "v2", device: "tablet", country: "US", type: "conversion", ms: openHour - 3 * HOUR, revenue_cents: 3 },
    { link: shop, visitor: "mid", device: "mobile", country: "US", type: "page_view", ms: openHour - 2 * HOUR },
  ]);
  await refreshBreakdownIndex(ch, scope, "device", now);
  expect(sortRows((await indexedBreakdown(ch, scope, "device", h)) ?? [])).toEqual(want());
  // A late event before the earlier hour: loaded whole again, still exact.
  await refreshBreakdownIndex(ch, scope, "device", now - 5 * HOUR);
  await send([
    { link: shop, visitor: "v3", device: "desktop", country: "US", type: "conversion", ms: openHour - 6 * DAY, revenue_cents: 9 },
  ]);
  await send([{ link: shop, visitor: "v4", device: "mobile", country: "US", type: "page_view", ms: openHour - 4 * HOUR }]);
  await refreshBreakdownIndex(ch, scope, "device", now);
  expect(sortRows((await indexedBreakdown(ch, scope, "device", h)) ?? [])).toEqual(want());
}, 120_000);
