// X-Idempotency-Key, backpressure (503) and a failing spool: nothing is half-accepted.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";
import { insertLink, pageView, postEvents } from "./helpers";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
}, 60_000);
afterAll(() => t.close());

const batch = (link: string, n: number) => Array.from({ length: n }, (_, i) => pageView(link, `v${i}`));
async function storedEvents(key: string, link: string): Promise<number> {
  await t.flush();
  return (await t.call(`/public-api/v1/journey/links/${link}/summary`, { key })).body.data.total_events;
}

describe("X-Idempotency-Key", () => {
  test("a repeat within the window answers 202 already_processed and ingests nothing", async () => {
    const acc = await t.createAccount();
    const link = await insertLink(t, acc.accountId);
    const headers = { "x-idempotency-key": "batch-0001" };
    const first = await postEvents(t, acc.key, batch(link, 3), headers);
    expect(first.status).toBe(202);
    expect(first.body.data.count).toBe(3);
    expect(first.body.data.already_processed).toBeUndefined();
    const again = await postEvents(t, acc.key, batch(link, 3), headers);
    expect(again.status).toBe(202);
    expect(again.body.data).toMatchObject({ already_processed: true, count: 0 });
    expect(await storedEvents(acc.key, link)).toBe(3);
    const other = await postEvents(t, acc.key, batch(link, 2), { "x-idempotency-key": "batch-0002" });
    expect(other.body.data.count).toBe(2);
    expect(await storedEvents(acc.key, link)).toBe(5);
  });

  test("keys are per account", async () => {
    const a = await t.createAccount();
    const b = await t.createAccount();
    const [la, lb] = [await insertLink(t, a.accountId), await insertLink(t, b.accountId)];
    const headers = { "x-idempotency-key": "shared-key" };
    expect((await postEvents(t, a.key, batch(la, 1), headers)).body.data.already_processed).toBeUndefined();
    expect((await postEvents(t, b.key, batch(lb, 1), headers)).body.data.already_processed).toBeUndefined();
  });

  test("a batch refused by validation or by the monthly limit does not use up its key", async () => {
    const acc = await t.createAccount({ limit_overrides: { journey_events_per_month: 2 } });
    const link = await insertLink(t, acc.accountId);
    const headers = { "x-idempotency-key": "retry-me" };
    expect((await postEvents(t, acc.key, [pageView(link, "v", { scroll_percent: 300 })], headers)).status).toBe(400);
    expect((await postEvents(t, acc.key, batch(link, 5), headers)).status).toBe(429);
    await t.admin("PATCH", `/accounts/${acc.accountId}`, { limit_overrides: { journey_events_per_month: 100 } });
    const ok = await postEvents(t, acc.key, batch(link, 5), headers);
    expect(ok.status).toBe(202);
    expect(ok.body.data).toMatchObject({ count: 5 });
    expect(ok.body.data.already_processed).toBeUndefined();
    expect(await storedEvents(acc.key, link)).toBe(5);
  });

  test("a repeat while the first batch is still being stored answers 503 with Retry-After, then already_processed", async () => {
    const acc = await t.createAccount();
    const link = await insertLink(t, acc.accountId);
    const headers = { "x-idempotency-key": "slow-batch" };
    const spool = t.runtime.deps.streams.journey;
    const append = spool.append;
    let release!: () => void;
    const writing = new Promise<void>((r) => (release = r));
    let started!: () => void;
    const appending = new Promise<void>((r) => (started = r));
    // The first batch's spool write is held (as a slow disk would) until the repeat has been answered.
    spool.append = (async (...args: Parameters<typeof append>) => {
      started();
      await writing;
      return append.apply(spool, args);
    }) as typeof append;
    let first: ReturnType<typeof postEvents>;
    try {
      first = postEvents(t, acc.key, batch(link, 3), headers);
      await appending;
      const repeat = await postEvents(t, acc.key, batch(link, 3), headers);
      expect(repeat.status).toBe(503);
      expect(repeat.body.error.code).toBe("SERVICE_UNAVAILABLE");
      expect(repeat.headers.get("retry-after")).toBe("1");
    } finally {
      release();
      spool.append = append;
    }
    expect((await first).body.data.count).toBe(3);
    expect((await postEvents(t, acc.key, batch(link, 3), headers)).body.data).toMatchObject({ already_processed: true, count: 0 });
    expect(await storedEvents(acc.key, link)).toBe(3);
  });

  test("a malformed key is 400", async () => {
    const acc = await t.createAccount();
    const link = await insertLink(t, acc.accountId);
    const res = await postEvents(t, acc.key, batch(link, 1), { "x-idempotency-key": "x".repeat(300) });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fields[0].field).toBe("header.x-idempotency-key");
  });
});

describe("when the spool cannot take the batch", () => {
  test("a failed append answers 503, gives back the quota and frees the idempotency key", async () => {
    const acc = await t.createAccount({ limit_overrides: { journey_events_per_month: 4 } }); // up to 6
    const link = await insertLink(t, acc.accountId);
    const spool = t.runtime.deps.streams.journey;
    const append = spool.append;
    spool.append = () => Promise.reject(new Error("disk full")); // fault injection: the disk refuses the write
    try {
      const res = await postEvents(t, acc.key, batch(link, 6), { "x-idempotency-key": "k1" });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe("SERVICE_UNAVAILABLE");
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    } finally {
      spool.append = append;
    }
    const retry = await postEvents(t, acc.key, batch(link, 6), { "x-idempotency-key": "k1" });
    expect(retry.status).toBe(202);
    expect(retry.body.data.usage).toEqual({ events_this_month: 6, limit: 4, status: "hard_limit_approaching" });
    expect(await storedEvents(acc.key, link)).toBe(6);
  });

  test("over the spool's bound: 503 with Retry-After, nothing accepted", async () => {
    const full = await createTestApp({ spoolMaxBytes: 0 });
    try {
      const acc = await full.createAccount();
      const link = await insertLink(full, acc.accountId);
      const res = await postEvents(full, acc.key, batch(link, 2), { "x-idempotency-key": "k" });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe("SERVICE_UNAVAILABLE");
      expect(res.headers.get("retry-after")).toBe("5");
      expect(full.runtime.deps.streams.journey.stats.appendedRecords).toBe(0);
    } finally {
      await full.close();
    }
  });
});
