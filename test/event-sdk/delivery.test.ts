// The event SDK against a real server of ours: what arrives, batching, idempotency keys reused on
// retries, backoff and Retry-After, what is and is not retried. A recording proxy sits in front of
// the server and injects the answers a real network and an overloaded server give.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createEventClient, type DroppedEvents, type JourneyUsage } from "../../event-sdk/src/index";
import { startProxy, type Proxy, type Rule } from "./proxy";
import { accountWithLink, countBySeq, range, startSdkServer, storedEvents, until, type SdkServer } from "./helpers";

let s: SdkServer;
beforeAll(async () => {
  s = await startSdkServer();
}, 120_000);
afterAll(() => s.stop());

const proxies: Proxy[] = [];
afterAll(async () => {
  for (const p of proxies) await p.close();
});
async function proxy(rule?: Rule): Promise<Proxy> {
  const p = await startProxy(() => s.url, rule);
  proxies.push(p);
  return p;
}

/** A client of a fresh account and link, through a proxy; long timers unless a test sets them. */
async function setup(rule?: Rule, options: Record<string, unknown> = {}) {
  const acc = await accountWithLink(s.t, (options.account as never) ?? {});
  const p = await proxy(rule);
  const drops: DroppedEvents[] = [];
  const client = await createEventClient({
    apiKey: (options.apiKey as string) ?? acc.key,
    baseUrl: p.url,
    linkId: acc.linkId,
    flushIntervalMs: 60_000,
    retry: { baseMs: 60_000 },
    onDrop: (d) => drops.push(d),
    ...options,
  });
  return { acc, p, client, drops };
}

describe("what arrives", () => {
  test("track, screen, page and conversion are stored with the client's identity, context and time", async () => {
    const { acc, client } = await setup(undefined, {
      context: { device_type: "mobile", os: "iOS", os_version: "18.2", country_code: "de" },
      appUrl: "app://shop",
    });
    const before = Date.now();
    await client.screen("Home", { tab: "featured" });
    await client.track("add_to_cart", { sku: "A-1", qty: 2 });
    await client.page("https://shop.example/checkout", { page_title: "Checkout" });
    await client.conversion("purchase", { revenue_cents: 4999, currency: "EUR", properties: { order: "A-17" } });
    const stats = await client.flush();
    expect(stats).toMatchObject({ queued: 0, delivered: 4, dropped: 0, lastError: null });

    const events = await storedEvents(s.t, acc.key, acc.linkId);
    const byType = Object.fromEntries(events.map((e) => [e.event_name ?? e.conversion_name ?? e.page_url, e]));
    const { visitor_id, session_id } = client.identity;
    for (const e of events) {
      expect(e).toMatchObject({ link_id: acc.linkId, visitor_id, session_id, device_type: "mobile", os: "iOS", country_code: "DE" });
      expect(Date.parse(e.timestamp)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    }
    expect(byType["app://shop/Home"]).toMatchObject({ event_type: "page_view", page_title: "Home", properties: { tab: "featured" } });
    expect(byType.add_to_cart).toMatchObject({ event_type: "custom", page_url: "app://shop/Home", properties: { sku: "A-1", qty: 2 } });
    expect(byType["https://shop.example/checkout"]).toMatchObject({ event_type: "page_view", page_title: "Checkout" });
    expect(byType.purchase).toMatchObject({
      event_type: "conversion",
      revenue_cents: 4999,
      currency: "EUR",
      page_url: "https://shop.example/checkout",
      properties: { order: "A-17" },
    });
  });

  test("a server app tracks for many users: per-event visitor and link, no session of its own", async () => {
    const { acc, client } = await setup();
    const other = await s.t.call("/public-api/v1/links", {
      method: "POST",
      key: acc.key,
      json: { url: "https://example.com/b", title: "B" },
    });
    await client.track({ event_name: "signup", visitor_id: "user-1", page_url: "https://api.example/signup" });
    await client.conversion("upgrade", { visitor_id: "user-2", link_id: other.body.data.id, revenue_cents: 100, currency: "USD" });
    await client.flush();
    const first = await storedEvents(s.t, acc.key, acc.linkId);
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ visitor_id: "user-1", event_name: "signup", session_id: null });
    const second = await storedEvents(s.t, acc.key, other.body.data.id);
    expect(second[0]).toMatchObject({ visitor_id: "user-2", conversion_name: "upgrade", revenue_cents: 100 });
  });

  test("attributeFromUrl takes the link and click id from a short link's svc_ref", async () => {
    const { acc, client } = await setup();
    const clickId = crypto.randomUUID();
    expect(client.attributeFromUrl("myapp://open?x=1")).toBe(false);
    expect(client.attributeFromUrl(`https://shop.example/p?utm_source=a&svc_ref=${acc.linkId.toUpperCase()}.${clickId}`)).toBe(true);
    await client.track("opened");
    await client.flush();
    const [e] = await storedEvents(s.t, acc.key, acc.linkId);
    expect(e).toMatchObject({ link_id: acc.linkId, visitor_id: clickId, event_name: "opened" });
  });
});

describe("batching", () => {
  test("at most 100 events per request, each batch under its own idempotency key", async () => {
    const { acc, p, client } = await setup();
    for (const seq of range(1, 250)) client.track("tick", { seq });
    await client.flush();
    expect(p.requests.map((r) => r.events.length)).toEqual([100, 100, 50]);
    expect(p.requests.map((r) => r.outcome)).toEqual([202, 202, 202]);
    expect(new Set(p.requests.map((r) => r.key)).size).toBe(3);
    const counts = countBySeq(await storedEvents(s.t, acc.key, acc.linkId));
    expect([...counts.keys()].sort((a, b) => a - b)).toEqual(range(1, 250));
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
  });

  test("a full batch goes out at once; a partial one after flushIntervalMs", async () => {
    const { p, client } = await setup(undefined, { batchSize: 10, flushIntervalMs: 300 });
    for (const seq of range(1, 10)) client.track("tick", { seq });
    await p.waitFor(1);
    expect(p.requests[0].events).toHaveLength(10);
    const start = Date.now();
    client.track("late", { seq: 11 });
    await p.waitFor(2);
    expect(Date.now() - start).toBeGreaterThanOrEqual(290);
    expect(p.requests[1].events.map((e) => e.properties.seq)).toEqual([11]);
  });
});

describe("retries", () => {
  test("503 with Retry-After: the same batch goes again under the same key, not before Retry-After", async () => {
    const { acc, p, client } = await setup(({ n }) => (n === 1 ? { respond: 503, headers: { "retry-after": "1" } } : { forward: true }), {
      retry: { baseMs: 50 },
    });
    for (const seq of range(1, 5)) client.track("tick", { seq });
    const after = await client.flush();
    expect(after.queued).toBe(5);
    expect(after.lastError).toContain("503");
    expect(after.nextSendAt! - p.requests[0].at).toBeGreaterThanOrEqual(1000);
    await p.waitFor(2);
    expect(p.requests[1].at - p.requests[0].at).toBeGreaterThanOrEqual(1000);
    expect(p.requests[1].key).toBe(p.requests[0].key!);
    expect(p.requests[1].outcome).toBe(202);
    await until(() => client.stats().queued === 0, 5000, "delivery");
    expect(countBySeq(await storedEvents(s.t, acc.key, acc.linkId))).toEqual(new Map(range(1, 5).map((n) => [n, 1])));
  });

  test("an answer lost after the server stored the batch: the retry is answered already_processed, nothing is stored twice", async () => {
    const { acc, p, client } = await setup(({ n }) => (n === 1 ? { dropAnswer: true } : { forward: true }), { retry: { baseMs: 50 } });
    for (const seq of range(1, 7)) client.track("tick", { seq });
    await client.flush();
    await p.waitFor(2);
    expect(p.requests[0]).toMatchObject({ outcome: "dropped", serverStatus: 202 });
    expect(p.requests[1]).toMatchObject({ key: p.requests[0].key, outcome: 202 });
    await until(() => client.stats().queued === 0, 5000, "delivery");
    const counts = countBySeq(await storedEvents(s.t, acc.key, acc.linkId));
    expect(counts).toEqual(new Map(range(1, 7).map((n) => [n, 1])));
  });

  test("408, 429, 500 and a refused connection are retried with the same key", async () => {
    const answers = [408, 429, 500];
    const { acc, p, client } = await setup(({ n }) => (n <= answers.length ? { respond: answers[n - 1] } : { forward: true }), {
      retry: { baseMs: 20, maxMs: 100 },
    });
    client.track("tick", { seq: 1 });
    await client.flush();
    await p.waitFor(4);
    expect(p.requests.map((r) => r.outcome)).toEqual([408, 429, 500, 202]);
    expect(new Set(p.requests.map((r) => r.key)).size).toBe(1);

    // Nothing listening at all: retried until something answers.
    const dead = await proxy();
    const deadUrl = dead.url;
    await dead.close();
    const offline = await createEventClient({ apiKey: acc.key, baseUrl: deadUrl, linkId: acc.linkId, retry: { baseMs: 20 } });
    offline.track("tick", { seq: 2 });
    const stats = await offline.flush();
    expect(stats.queued).toBe(1);
    expect(stats.lastError).toContain("network error");
    expect(stats.nextSendAt).not.toBeNull();
    await offline.shutdown({ timeoutMs: 0 });
  });

  test("the gaps between attempts grow as the backoff says", async () => {
    const { p, client } = await setup(() => ({ respond: 500 }), { retry: { baseMs: 100, maxMs: 10_000 } });
    client.track("tick", { seq: 1 });
    await client.flush();
    await p.waitFor(4);
    await client.shutdown({ timeoutMs: 0 });
    const gaps = p.requests.slice(1, 4).map((r, i) => r.at - p.requests[i].at);
    expect(gaps[0]).toBeGreaterThanOrEqual(50 - 5);
    expect(gaps[1]).toBeGreaterThanOrEqual(100 - 5);
    expect(gaps[2]).toBeGreaterThanOrEqual(200 - 5);
    expect(gaps[2]).toBeLessThan(400 + 1000);
  });
});

describe("what is not retried", () => {
  test("401 (revoked key) and 403 (no journey:write): the batch is dropped and reported, never resent", async () => {
    const acc = await accountWithLink(s.t);
    const revoked = await s.t.admin("POST", `/accounts/${acc.accountId}/keys`, { name: "gone", scopes: ["journey:write"] });
    await s.t.admin("DELETE", `/accounts/${acc.accountId}/keys/${revoked.body.data.id}`);
    const readOnly = await s.t.admin("POST", `/accounts/${acc.accountId}/keys`, { name: "ro", scopes: ["journey:read"] });
    for (const [key, status, code] of [
      [revoked.body.data.key, 401, "UNAUTHORIZED"],
      [readOnly.body.data.key, 403, "INSUFFICIENT_PERMISSIONS"],
    ] as const) {
      const { p, client, drops } = await setup(undefined, { apiKey: key, retry: { baseMs: 10 } });
      for (const seq of range(1, 3)) client.track("tick", { seq });
      const stats = await client.flush();
      expect(stats).toMatchObject({ queued: 0, dropped: 3, delivered: 0 });
      expect(p.requests.map((r) => r.outcome)).toEqual([status]);
      expect(drops).toHaveLength(1);
      expect(drops[0]).toMatchObject({ reason: "rejected", status });
      expect(drops[0].error).toContain(code);
      expect(drops[0].events.map((e) => e.properties!.seq)).toEqual([1, 2, 3]);
      expect(stats.nextSendAt).toBeNull();
    }
    expect(await storedEvents(s.t, acc.key, acc.linkId)).toHaveLength(0);
  });

  test("a 400 naming one event drops that event; the rest is delivered under the same key", async () => {
    const { acc, p, client, drops } = await setup();
    const stranger = await accountWithLink(s.t); // a link of another account: the server refuses it
    for (const seq of range(1, 5))
      client.track(seq === 3 ? { event_name: "tick", link_id: stranger.linkId, properties: { seq } } : "tick", { seq });
    const stats = await client.flush();
    expect(p.requests.map((r) => [r.outcome, r.events.length])).toEqual([
      [400, 5],
      [202, 4],
    ]);
    expect(p.requests[1].key).toBe(p.requests[0].key!);
    expect(stats).toMatchObject({ queued: 0, delivered: 4, dropped: 1 });
    expect(drops[0]).toMatchObject({ reason: "rejected", status: 400 });
    expect(drops[0].events[0].properties!.seq).toBe(3);
    expect(drops[0].error).toContain("body.events.2.link_id");
    expect([...countBySeq(await storedEvents(s.t, acc.key, acc.linkId)).keys()].sort()).toEqual([1, 2, 4, 5]);
  });

  test("the monthly limit's 429 holds the batch until its Retry-After, even on flush()", async () => {
    const usage: JourneyUsage[] = [];
    const { p, client } = await setup(undefined, {
      account: { limit_overrides: { journey_events_per_month: 4 } },
      onUsageWarning: (u: JourneyUsage) => usage.push(u),
      batchSize: 5,
    });
    for (const seq of range(1, 5)) client.track("tick", { seq }); // 5 of 4: 125%, accepted with a warning
    await p.waitFor(1);
    await until(() => client.stats().queued === 0, 5000, "delivery");
    expect(usage).toEqual([{ events_this_month: 5, limit: 4, status: "hard_limit_approaching" }]);

    for (const seq of range(6, 10)) client.track("tick", { seq }); // 10 of 4: over 150%, refused
    await p.waitFor(2);
    expect(p.requests[1].outcome).toBe(429);
    const retryAfter = Number(p.requests[1].retryAfter);
    expect(retryAfter).toBeGreaterThan(0);
    await client.flush();
    expect(p.requests).toHaveLength(2);
    const stats = client.stats();
    expect(stats.queued).toBe(5);
    expect(stats.nextSendAt! - p.requests[1].at).toBeGreaterThanOrEqual(retryAfter * 1000 - 1000);
    await client.shutdown({ timeoutMs: 0 });
  });
});
