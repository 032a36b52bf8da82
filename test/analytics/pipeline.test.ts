// The click sink: replays insert nothing twice (raw rows and aggregates), visits across midnight stay
// one visitor, and salts rotate daily through Postgres.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createTestApp, type TestApp } from "../helpers/app";
import { createClickFlusher } from "../../server/ingest/clicks/flusher";
import { createClickEnricher } from "../../server/ingest/clicks/enrich";
import type { ClickhouseTable } from "../../server/storage/clickhouse/tables";
import { createLink, DAY_MS, get, isoDay, rawClick, spoolClicks, UA } from "./helpers";

let t: TestApp;
let key: string;
let accountId: string;
beforeAll(async () => {
  t = await createTestApp();
  ({ key, accountId } = await t.createAccount({ tier: "scale" }));
}, 60_000);
afterAll(() => t.close());

const ch = () => t.runtime.deps.ch;
const count = async (table: ClickhouseTable, linkId: string, expr = "count()") =>
  Number((await ch().query<{ n: string }>(`SELECT ${expr} AS n FROM ${ch().table(table)} WHERE link_id = {l:UUID}`, { l: linkId }))[0].n);

describe("click sink", () => {
  test("a replayed chunk (same token) changes neither the rows nor the aggregates", async () => {
    const link = await createLink(t, key);
    const { pg } = t.runtime.deps;
    const flusher = createClickFlusher({ ch: ch(), pg, trustProxy: false, hashSecret: t.config.appSecret });
    const records = [UA.iphone, UA.windowsChrome, UA.slack].map((ua, i) =>
      rawClick({ account_id: accountId, link_id: link.id, ua, ip: `8.8.8.${i}` }),
    );
    await flusher.stream.sink(records, "clicks-replay-test-1");
    await flusher.stream.sink(records, "clicks-replay-test-1");
    await flusher.close();
    expect(await count("clicks", link.id)).toBe(3);
    expect(await count("clicks_daily_links", link.id, "sum(clicks)")).toBe(3);
    const summary = (await get(t, key, "/analytics/summary?bot_filter=all")).body.data.analytics;
    expect(summary.total_clicks).toBe(3);
    expect((await get(t, key, "/analytics/geo?bot_filter=all")).body.data.analytics).toEqual([
      { country_code: "US", clicks: 3, unique_visitors: 3 },
    ]);
  });
});

describe("unique visitor counts", () => {
  // The uniqCombined(14) sketches read before migration 0222 were exact only up to about a thousand.
  test("are exact for 3,000 visitors", async () => {
    const other = await t.createAccount({ tier: "scale" });
    const link = await createLink(t, other.key);
    await spoolClicks(
      t,
      Array.from({ length: 3000 }, (_, i) =>
        rawClick({ account_id: other.accountId, link_id: link.id, ip: `81.2.${i >> 8}.${i & 255}`, ua: UA.iphone }),
      ),
    );
    const summary = (await get(t, other.key, "/analytics/summary")).body.data.analytics;
    expect(summary).toMatchObject({ total_clicks: 3000, unique_visitors: 3000 });
    expect((await get(t, other.key, `/links/${link.id}/stats`)).body.data.unique_visitors).toBe(3000);
  });
});

describe("visitor hashes", () => {
  const hashesOf = async (linkId: string) =>
    (
      await ch().query<{ visitor_hash: string }>(
        `SELECT toString(visitor_hash) AS visitor_hash FROM ${ch().table("clicks")} WHERE link_id = {l:UUID} ORDER BY timestamp`,
        { l: linkId },
      )
    ).map((r) => r.visitor_hash);

  test("a visit across midnight stays one visitor; later that day it is a new one", async () => {
    const link = await createLink(t, key);
    const midnight = Math.floor(Date.now() / DAY_MS) * DAY_MS - 4 * DAY_MS;
    const at = (offsetMin: number, ip: string) =>
      rawClick({ account_id: accountId, link_id: link.id, ip, ua: UA.iphone, ts: midnight + offsetMin * 60_000 });
    await spoolClicks(t, [at(-10, "8.8.8.8")]); // before midnight, flushed on its own
    await spoolClicks(t, [
      at(10, "8.8.8.8"), // continues the visit
      at(45, "8.8.8.8"), // a new visit, today's hash
      at(-20, "81.2.69.142"),
      at(20, "81.2.69.142"), // both sides of midnight in one batch
      at(5, "2a00:1450:4001::1"), // nothing before midnight
    ]);
    // By time: -20, -10, 5, 10, 20, 45 minutes around midnight.
    const hashes = await hashesOf(link.id);
    const [m20, m10, p5, p10, p20, p45] = hashes;
    expect(p10).toBe(m10);
    expect(p20).toBe(m20);
    expect(p45).not.toBe(m10);
    expect(new Set([m20, m10, p5, p45]).size).toBe(4);
    const day = isoDay(midnight);
    const series = (await get(t, key, `/analytics/timeseries?start_date=${isoDay(midnight - DAY_MS)}&end_date=${day}`)).body.data.analytics;
    // Before midnight: two people. After: the two continuing visits, one new visit of the first person, one new person.
    expect(series).toEqual([
      { date: isoDay(midnight - DAY_MS), clicks: 2, unique_visitors: 2 },
      { date: day, clicks: 4, unique_visitors: 4 },
    ]);
  });

  test("one random salt per day, shared through Postgres; making day D's deletes those before D-2", async () => {
    const { pg } = t.runtime.deps;
    await pg.query(
      sql`insert into visitor_salts (day, salt) values (${isoDay(Date.now() - 10 * DAY_MS)}, 'old-salt-old-salt-old-salt-old-salt')`,
    );
    // A fresh enricher (no cached salts) meets a day without a salt: it makes one and prunes.
    const enrich = createClickEnricher({ store: { pg, ch: ch() }, trustProxy: false, hashSecret: t.config.appSecret });
    const threeDaysAgo = Date.now() - 3 * DAY_MS;
    await enrich([rawClick({ account_id: accountId, link_id: crypto.randomUUID(), ts: threeDaysAgo })]);
    const rows = await pg.query<{ day: string; salt: string }>(sql`select day::text as day, salt from visitor_salts order by day`);
    const days = rows.map((r) => r.day);
    expect(days).toContain(isoDay(threeDaysAgo));
    expect(days).toContain(isoDay(Date.now()));
    expect(days.every((d) => d >= isoDay(threeDaysAgo - 2 * DAY_MS))).toBe(true);
    expect(new Set(rows.map((r) => r.salt)).size).toBe(rows.length);
    expect(rows.every((r) => r.salt.length >= 32)).toBe(true);
    // Another instance reads the same salt rather than making its own.
    const again = createClickEnricher({ store: { pg, ch: ch() }, trustProxy: false, hashSecret: t.config.appSecret });
    const click = rawClick({ account_id: accountId, link_id: crypto.randomUUID() });
    expect((await again([click]))[0].visitor_hash).toBe((await enrich([click]))[0].visitor_hash);
  });
});

describe("spool records across the upgrade that added source, variant and rule", () => {
  test("a chunk mixing the previous version's records (without them) and new ones flushes each right", async () => {
    const link = await createLink(t, key);
    const flusher = createClickFlusher({ ch: ch(), pg: t.runtime.deps.pg, trustProxy: false, hashSecret: t.config.appSecret });
    // Exactly the fields the previous version wrote, as the spool holds them: one JSON array per line.
    const old = {
      click_id: crypto.randomUUID(),
      ts: Date.now(),
      account_id: accountId,
      link_id: link.id,
      domain: "",
      ua: UA.iphone,
      ip: "8.8.4.4",
      referrer: "",
      lang: "de",
      query: "a=1",
    };
    const current = rawClick({ account_id: accountId, link_id: link.id, src: "qr", variant: "https://example.com/b", rule: 3 });
    const chunk = Buffer.from(`${JSON.stringify([old])}\n${JSON.stringify([current])}\n`);
    expect(await flusher.stream.sinkRaw!(chunk, "clicks-upgrade-test-1")).toBe(2);
    await flusher.close();
    const rows = await ch().query<{ click_id: string; source: string; variant: string; rule: number; query: string }>(
      `SELECT toString(click_id) AS click_id, source, variant, rule, query FROM ${ch().table("clicks")} WHERE link_id = {l:UUID} ORDER BY source`,
      { l: link.id },
    );
    expect(rows).toEqual([
      { click_id: old.click_id, source: "link", variant: "", rule: 0, query: "a=1" },
      { click_id: current.click_id, source: "qr", variant: "https://example.com/b", rule: 3, query: "" },
    ]);
    expect(await count("clicks_daily_targets", link.id, "sum(clicks)")).toBe(2);
  });
});
