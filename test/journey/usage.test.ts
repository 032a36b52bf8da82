// Monthly journey usage: statuses and headers from 100%, 429 above 150%, exact counting under
// concurrency, the Postgres monthly_usage counter.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createTestApp, type TestApp } from "../helpers/app";
import { insertLink, pageView, postEvents } from "./helpers";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
}, 60_000);
afterAll(() => t.close());

const month = () => new Date().toISOString().slice(0, 7) + "-01";
const secondsToNextMonth = () => {
  const now = new Date();
  return (Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) - now.getTime()) / 1000;
};
const batch = (link: string, n: number) => Array.from({ length: n }, (_, i) => pageView(link, `v${i}`));
async function storedUsage(accountId: string): Promise<number> {
  await t.runtime.jobs.journey.runOnce(); // writes the usage counters out
  const rows = await t.runtime.deps.pg.query<{ n: string }>(
    sql`select journey_events as n from monthly_usage where account_id = ${accountId} and month = ${month()}`,
  );
  return Number(rows[0]?.n ?? 0);
}
async function storedEvents(key: string, link: string): Promise<number> {
  await t.flush();
  return (await t.call(`/public-api/v1/journey/links/${link}/summary`, { key })).body.data.total_events;
}

describe("monthly limit (journey_events_per_month 10)", () => {
  let acc: { accountId: string; key: string };
  let link: string;
  beforeAll(async () => {
    acc = await t.createAccount({ tier: "free", limit_overrides: { journey_events_per_month: 10 } });
    link = await insertLink(t, acc.accountId);
  });

  test("below 100%: plain 202, no usage object, no warning headers", async () => {
    const res = await postEvents(t, acc.key, batch(link, 9));
    expect(res.status).toBe(202);
    expect(res.body.data).toEqual({ message: expect.any(String), count: 9 });
    expect(res.headers.get("x-journey-warning")).toBeNull();
    expect(res.headers.get("x-journey-usage")).toBeNull();
  });

  test("100% to 120%: soft_limit with usage and headers", async () => {
    for (const [n, used] of [
      [1, 10],
      [2, 12],
    ]) {
      const res = await postEvents(t, acc.key, batch(link, n));
      expect(res.status).toBe(202);
      expect(res.body.data.count).toBe(n);
      expect(res.body.data.usage).toEqual({ events_this_month: used, limit: 10, status: "soft_limit" });
      expect(res.headers.get("x-journey-warning")).toBe("soft_limit");
      expect(res.headers.get("x-journey-usage")).toBe(`${used}/10`);
    }
  });

  test("above 120% up to 150%: hard_limit_approaching", async () => {
    const res = await postEvents(t, acc.key, batch(link, 1));
    expect(res.status).toBe(202);
    expect(res.body.data.usage).toEqual({ events_this_month: 13, limit: 10, status: "hard_limit_approaching" });
    expect(res.headers.get("x-journey-warning")).toBe("hard_limit_approaching");
    expect(res.headers.get("x-journey-usage")).toBe("13/10");
  });

  test("a batch that would end above 150% is refused whole: 429 with Retry-After to the month's end", async () => {
    const res = await postEvents(t, acc.key, batch(link, 3)); // 16 > 15
    expect(res.status).toBe(429);
    expect(res.body.success).toBe(false);
    expect(res.body.error.code).toBe("JOURNEY_LIMIT_EXCEEDED");
    expect(res.body.error.details).toEqual({ events_this_month: 13, limit: 10, status: "blocked" });
    expect(res.body.meta.status).toBe(429);
    const retryAfter = Number(res.headers.get("retry-after"));
    expect(Math.abs(retryAfter - secondsToNextMonth())).toBeLessThanOrEqual(2);
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
  });

  test("up to exactly 150% is still accepted, then every batch is 429", async () => {
    const res = await postEvents(t, acc.key, batch(link, 2));
    expect(res.status).toBe(202);
    expect(res.body.data.usage).toEqual({ events_this_month: 15, limit: 10, status: "hard_limit_approaching" });
    const over = await postEvents(t, acc.key, batch(link, 1));
    expect(over.status).toBe(429);
    expect(over.body.error.details.events_this_month).toBe(15);
  });

  test("the counter is kept in Postgres monthly_usage and matches what was stored", async () => {
    expect(await storedUsage(acc.accountId)).toBe(15);
    expect(await storedEvents(acc.key, link)).toBe(15);
  });

  test("raising the limit lets events in again", async () => {
    await t.admin("PATCH", `/accounts/${acc.accountId}`, { limit_overrides: { journey_events_per_month: 1000 } });
    const res = await postEvents(t, acc.key, batch(link, 5));
    expect(res.status).toBe(202);
    expect(res.body.data.usage).toBeUndefined();
    expect(await storedUsage(acc.accountId)).toBe(20);
  });
});

describe("exactness", () => {
  test("concurrent batches never exceed 150% of the limit", async () => {
    const acc = await t.createAccount({ limit_overrides: { journey_events_per_month: 100 } });
    const link = await insertLink(t, acc.accountId);
    const results = await Promise.all(Array.from({ length: 40 }, () => postEvents(t, acc.key, batch(link, 5))));
    const accepted = results.filter((r) => r.status === 202);
    expect(accepted).toHaveLength(30); // 150 of the 200 events
    expect(results.filter((r) => r.status === 429)).toHaveLength(10);
    expect(await storedUsage(acc.accountId)).toBe(150);
    expect(await storedEvents(acc.key, link)).toBe(150);
  });

  test("the counter starts from the value stored in Postgres", async () => {
    const acc = await t.createAccount({ limit_overrides: { journey_events_per_month: 10 } });
    const link = await insertLink(t, acc.accountId);
    await t.runtime.deps.pg.query(
      sql`insert into monthly_usage (account_id, month, journey_events) values (${acc.accountId}, ${month()}, 14)`,
    );
    const res = await postEvents(t, acc.key, batch(link, 1));
    expect(res.body.data.usage).toEqual({ events_this_month: 15, limit: 10, status: "hard_limit_approaching" });
    expect((await postEvents(t, acc.key, batch(link, 1))).status).toBe(429);
    expect(await storedUsage(acc.accountId)).toBe(15);
  });

  test("the tier's limit applies without an override", async () => {
    const acc = await t.createAccount({ tier: "free" }); // 10,000 per month
    const link = await insertLink(t, acc.accountId);
    await t.runtime.deps.pg.query(
      sql`insert into monthly_usage (account_id, month, journey_events) values (${acc.accountId}, ${month()}, 9999)`,
    );
    const res = await postEvents(t, acc.key, batch(link, 1));
    expect(res.body.data.usage).toEqual({ events_this_month: 10_000, limit: 10_000, status: "soft_limit" });
  });
});
