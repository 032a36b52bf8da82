// A page view that carries an event_name counts for a step of that name. The funnel reads the
// bundles' named-view columns only for periods that journey_named_view_days (migration 0209) lists,
// and that migration backfills the table from the events already stored when it is applied.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { applyClickhouseMigrations } from "../../server/storage/clickhouse/migrate";
import { createTestApp, type TestApp } from "../helpers/app";
import { ago, insertLink, pageView, postEvents } from "./helpers";

let t: TestApp;
let key: string;
let link: string;

beforeAll(async () => {
  t = await createTestApp();
  const acc = await t.createAccount();
  key = acc.key;
  link = await insertLink(t, acc.accountId);
  const events = [
    pageView(link, "a", { session_id: "sa", timestamp: ago(30) }),
    pageView(link, "a", { session_id: "sa", event_name: "signup", page_url: "https://shop.example/welcome", timestamp: ago(20) }),
    pageView(link, "b", { session_id: "sb", timestamp: ago(10) }),
  ];
  expect((await postEvents(t, key, events)).status).toBe(202);
  await t.flush();
}, 60_000);
afterAll(() => t.close());

const funnel = async () => {
  const res = await t.call(`/public-api/v1/journey/links/${link}/funnel?steps=page_view,signup&period=24h`, { key });
  expect(res.status).toBe(200);
  return { reached: res.body.data.steps.map((s: { visitors: number }) => s.visitors), total: res.body.data.total_visitors };
};

test("a named page view reaches the step of its name", async () => {
  expect(await funnel()).toEqual({ reached: [2, 1], total: 2 });
});

test("migration 0209 backfills the days of named page views stored before it", async () => {
  const ch = t.runtime.deps.ch;
  // Without its row the funnel leaves the named views out: the table is what makes them count.
  await ch.command(`TRUNCATE TABLE ${ch.table("journey_named_view_days")}`);
  expect(await funnel()).toEqual({ reached: [2, 0], total: 2 });
  // As on a database from before 0209: no view, no table, not recorded; applying it backfills.
  await ch.command(`DROP VIEW ${ch.table("journey_named_view_days_mv")}`);
  await ch.command(`DROP TABLE ${ch.table("journey_named_view_days")}`);
  await ch.command(`DELETE FROM ${ch.table("schema_migrations")} WHERE version = 209`);
  await applyClickhouseMigrations(ch);
  expect(await funnel()).toEqual({ reached: [2, 1], total: 2 });
  // A named page view stored after it counts too.
  expect((await postEvents(t, key, [pageView(link, "c", { event_name: "signup", timestamp: ago(5) })])).status).toBe(202);
  await t.flush();
  expect(await funnel()).toEqual({ reached: [3, 2], total: 3 });
});
