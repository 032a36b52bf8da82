// Migration 0223 on a database that already holds journey events (counted by migration 0200's `uniq`
// states): after it, the breakdowns by device, country and name count the visitors and converters of the
// events stored before it and after it exactly, none twice, with every conversion and cent counted once;
// running it again, and merging the rollup, changes nothing.
import { beforeAll, expect, test } from "bun:test";
import { getConversionBreakdown, getConversionTotals, type Scope } from "../../server/conversions/queries";
import type { Clickhouse } from "../../server/storage/clickhouse/client";
import { useClickhouseBefore } from "../helpers/migrated-clickhouse";
import { expectedBreakdown, insertEvents, type LabelDimension, type SentEvent } from "./helpers";

let ch: Clickhouse;
const account = crypto.randomUUID();
const shop = crypto.randomUUID();
const blog = crypto.randomUUID();
const now = Date.now();

const migrated = useClickhouseBefore(223);
beforeAll(() => {
  ch = migrated.ch;
});

const apply0223 = () => migrated.apply(223);

/**
 * Visitors from..to-1 on `link`: a page view `hoursAgo` hours back, a conversion (`order`, 250 cents, on
 * the same device) for every third, and every tenth converts again as `signup` from a tablet in Germany.
 */
const visitors = (link: string, from: number, to: number, hoursAgo: number): SentEvent[] =>
  Array.from({ length: to - from }, (_, k) => from + k).flatMap((i) => {
    const ms = now - hoursAgo * 3_600_000 + (i - from) * 1000;
    const base = { link, visitor: `v${i}`, device: i % 2 ? "mobile" : "desktop", country: i % 3 ? "US" : "FR" };
    const events: SentEvent[] = [{ ...base, type: "page_view", ms }];
    if (i % 3 === 0) events.push({ ...base, type: "conversion", ms: ms + 500, conversion_name: "order", revenue_cents: 250 });
    if (i % 10 === 0) events.push({ ...base, device: "tablet", country: "DE", type: "conversion", ms: ms + 900, event_name: "signup" });
    return events;
  });

const sent: SentEvent[] = [];
const send = async (events: SentEvent[]) => {
  await insertEvents(ch, account, events, 700);
  sent.push(...events);
};

test("events stored before 0223 are counted exactly after it, with those stored after, none twice", async () => {
  // Before: 1,500 visitors on the shop (two hours back, in three chunks), 400 on the blog.
  await send(visitors(shop, 0, 1500, 2));
  await send(visitors(blog, 5000, 5400, 3));
  await apply0223();
  // The later migrations too (those the reports below need, 0230's closed periods among them).
  await migrated.applyAfter(223);
  // After: 800 more on the shop, 500 of them already seen before the migration (they convert again).
  await send(visitors(shop, 1000, 1800, 1));
  const scopes: [Scope, string[]][] = [
    [{ accountId: account, fromMs: Math.floor((now - 24 * 3_600_000) / 3_600_000) * 3_600_000 }, [shop, blog]],
    [{ accountId: account, fromMs: Math.floor((now - 24 * 3_600_000) / 3_600_000) * 3_600_000, linkIds: [shop] }, [shop]],
  ];
  const check = async () => {
    for (const [scope, links] of scopes) {
      for (const dimension of ["device", "country", "name"] as LabelDimension[])
        expect(await getConversionBreakdown(ch, scope, dimension)).toEqual(expectedBreakdown(sent, links, dimension));
      const mine = sent.filter((e) => links.includes(e.link) && e.type === "conversion");
      expect(await getConversionTotals(ch, scope)).toMatchObject({
        conversions: mine.length,
        revenueCents: mine.reduce((n, e) => n + (e.revenue_cents ?? 0), 0),
      });
    }
  };
  // The figures, spelled out for the shop: 1,800 visitors; desktop and mobile 900 each, converters 300
  // each (every third), tablet 180 visitors who all converted; 180 converters of `signup`.
  expect(expectedBreakdown(sent, [shop], "device").map((r) => [r.label, r.visitors, r.converters])).toEqual([
    ["desktop", 900, 300],
    ["mobile", 900, 300],
    ["tablet", 180, 180],
  ]);
  await check();
  // A migration interrupted before it was recorded runs again on the next start: nothing counts twice.
  await apply0223();
  await check();
  // And whatever ClickHouse has merged.
  await ch.command(`OPTIMIZE TABLE ${ch.table("journey_dims_hourly")} FINAL`);
  await check();
}, 120_000);
