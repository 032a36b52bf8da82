// Embedded Postgres: a limited link far from its limit is leased clicks served from memory. The lease
// follows the link's traffic (a second of it), and whatever the leases, once this instance settles the
// count in Postgres is exactly the clicks it served. With a Postgres server (which several instances may
// share) there are no leases: every click is counted before its redirect.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createTestApp, type TestApp } from "../helpers/app";
import { testDatabaseUrl } from "../helpers/stores";

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp();
  ({ key } = await t.createAccount({ tier: "scale" }));
});
afterAll(() => t.close());

async function limitedLink(max: number) {
  const res = await t.call("/public-api/v1/links", {
    method: "POST",
    key,
    json: { url: "https://example.com/home", title: "T", description: "D", max_clicks: max },
  });
  const link = res.body.data;
  await t.runtime.deps.linkCache.get(null, link.short_code);
  const cached = t.runtime.deps.linkCache.peek(null, link.short_code)!;
  expect(cached.id).toBe(link.id);
  return cached;
}
const countedInPostgres = async (id: string) =>
  Number((await t.runtime.deps.pg.query<{ n: string }>(sql`select counted_clicks as n from links where id = ${id}`))[0].n);

test("embedded, a link served thousands of clicks a second is leased more than the minimum block next (with a server, no lease: each click counted); settled, the count is what was served", async () => {
  const limiter = t.runtime.deps.clickLimits;
  const link = await limitedLink(10_000_000);
  let served = 0;
  const takeOne = async () => {
    if (await limiter.take(link)) served++;
  };
  if (testDatabaseUrl) {
    // A Postgres server may be shared by several instances: every click is counted before its redirect.
    while (served < 50) {
      await takeOne();
      expect(await countedInPostgres(link.id)).toBe(served);
    }
    return;
  }
  await takeOne(); // the first lease: the minimum block
  const first = await countedInPostgres(link.id);
  expect(first).toBe(2_000);
  // Its clicks served at full speed (far more than 2,000 a second here), then one more asks for the next.
  while (served < first) await takeOne();
  await takeOne();
  expect((await countedInPostgres(link.id)) - first).toBeGreaterThan(2_000);
  await limiter.settle();
  expect(await countedInPostgres(link.id)).toBe(served);
});
