// POST /journey/events: validation of every field, CORS, rate-limit exemption, conversion events.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createTestApp, type TestApp } from "../helpers/app";
import { webhookEndpoints } from "../../server/storage/postgres/schema";
import { insertLink, pageView, postEvents } from "./helpers";

let t: TestApp;
let key: string;
let accountId: string;
let link: string;
let rejectedLink: string; // receives only batches that must be refused
beforeAll(async () => {
  t = await createTestApp();
  ({ key, accountId } = await t.createAccount());
  link = await insertLink(t, accountId);
  rejectedLink = await insertLink(t, accountId);
}, 60_000);
afterAll(() => t.close());

const totalEvents = async (linkId: string, apiKey: string) => {
  await t.flush();
  return (await t.call(`/public-api/v1/journey/links/${linkId}/summary`, { key: apiKey })).body.data.total_events;
};

describe("validation", () => {
  const long = (n: number) => "x".repeat(n);
  const manyProps = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]));
  const cases: [string, Record<string, unknown>, string][] = [
    ["missing link_id", { link_id: undefined }, "link_id"],
    ["link_id not a UUID", { link_id: "abc" }, "link_id"],
    ["missing visitor_id", { visitor_id: undefined }, "visitor_id"],
    ["empty visitor_id", { visitor_id: "" }, "visitor_id"],
    ["visitor_id over 128 characters", { visitor_id: long(129) }, "visitor_id"],
    ["session_id over 128 characters", { session_id: long(129) }, "session_id"],
    ["missing event_type", { event_type: undefined }, "event_type"],
    ["unknown event_type", { event_type: "click" }, "event_type"],
    ["missing page_url", { page_url: undefined }, "page_url"],
    ["page_url over 2048 characters", { page_url: long(2049) }, "page_url"],
    ["event_name over 256 characters", { event_name: long(257) }, "event_name"],
    ["page_title over 512 characters", { page_title: long(513) }, "page_title"],
    ["scroll_percent above 100", { scroll_percent: 101 }, "scroll_percent"],
    ["scroll_percent below 0", { scroll_percent: -1 }, "scroll_percent"],
    ["scroll_percent not a number", { scroll_percent: "50" }, "scroll_percent"],
    ["negative time_on_page", { time_on_page: -5 }, "time_on_page"],
    ["timestamp not ISO 8601", { timestamp: "yesterday" }, "timestamp"],
    ["timestamp impossible date", { timestamp: "2024-13-45T00:00:00Z" }, "timestamp"],
    ["timestamp over a day ahead", { timestamp: new Date(Date.now() + 25 * 3600_000).toISOString() }, "timestamp"],
    ["revenue_cents not an integer", { revenue_cents: 12.5 }, "revenue_cents"],
    ["negative revenue_cents", { revenue_cents: -100 }, "revenue_cents"],
    ["currency lower case", { currency: "usd" }, "currency"],
    ["currency of 2 letters", { currency: "US" }, "currency"],
    ["country_code of 3 letters", { country_code: "USA" }, "country_code"],
    ["unknown device_type", { device_type: "tv" }, "device_type"],
    ["browser over 64 characters", { browser: long(65) }, "browser"],
    ["city over 128 characters", { city: long(129) }, "city"],
    ["properties nested object", { properties: { a: { b: 1 } } }, "properties"],
    ["properties array value", { properties: { a: [1, 2] } }, "properties"],
    ["properties over 50 keys", { properties: manyProps }, "properties"],
    ["properties over 4 KB", { properties: { a: long(1000), b: long(1000), c: long(1000), d: long(1000), e: long(200) } }, "properties"],
    ["properties not an object", { properties: "a=1" }, "properties"],
    ["unknown field", { colour: "red" }, "colour"],
  ];
  for (const [name, patch, field] of cases) {
    test(`${name} → 400 naming body.events.2.${field}; nothing of the batch stored`, async () => {
      const bad = { ...pageView(rejectedLink, "v-bad"), ...patch };
      const events = [pageView(rejectedLink, "v-ok"), pageView(rejectedLink, "v-ok"), JSON.parse(JSON.stringify(bad))];
      const res = await postEvents(t, key, events);
      expect(res.status).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
      expect(res.body.meta.status).toBe(400);
      expect(res.body.error.details.fields[0]).toMatchObject({ field: `body.events.2.${field}`, index: 2 });
      expect(res.body.error.message).toContain(`body.events.2.${field}`);
    });
  }

  test("more than 100 events → 400 VALIDATION_ERROR with meta.status", async () => {
    const res = await postEvents(
      t,
      key,
      Array.from({ length: 101 }, () => pageView(rejectedLink, "v")),
    );
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect(res.body.error.details.fields[0].field).toBe("body.events");
    expect(res.body.meta.status).toBe(400);
  });

  test("an empty batch, a missing events array and malformed JSON are 400", async () => {
    expect((await postEvents(t, key, [])).status).toBe(400);
    const none = await t.call("/public-api/v1/journey/events", { method: "POST", key, json: { event: [] } });
    expect(none.status).toBe(400);
    const junk = await t.call("/public-api/v1/journey/events", {
      method: "POST",
      key,
      body: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect(junk.status).toBe(400);
    expect(junk.body.error.code).toBe("VALIDATION_ERROR");
  });

  test("a link of another account or a deleted link is refused, naming the index", async () => {
    const other = await t.createAccount();
    const foreign = await insertLink(t, other.accountId);
    const res = await postEvents(t, key, [pageView(link, "v"), pageView(foreign, "v")]);
    expect(res.status).toBe(400);
    expect(res.body.error.details.fields[0]).toMatchObject({ field: "body.events.1.link_id", index: 1 });
    const deleted = await insertLink(t, accountId);
    await t.runtime.deps.pg.query(sql`update links set deleted_at = now() where id = ${deleted}`);
    const res2 = await postEvents(t, key, [pageView(deleted, "v")]);
    expect(res2.status).toBe(400);
    expect(res2.body.error.details.fields[0].field).toBe("body.events.0.link_id");
  });

  test("no event of any refused batch was stored", async () => {
    expect(await totalEvents(rejectedLink, key)).toBe(0);
    const ok = await postEvents(
      t,
      key,
      Array.from({ length: 100 }, () => pageView(rejectedLink, "v")),
    );
    expect(ok.status).toBe(202);
    expect(ok.body.data.count).toBe(100);
    expect(await totalEvents(rejectedLink, key)).toBe(100);
  });

  test("a valid batch with every field is stored; rejected batches stored nothing", async () => {
    const fresh = await insertLink(t, accountId);
    const full = {
      link_id: fresh.toUpperCase(),
      visitor_id: "v-full",
      session_id: "s-full",
      event_type: "conversion",
      event_name: "purchase",
      page_url: "https://shop.example/thanks",
      page_title: "Thanks",
      scroll_percent: 100,
      time_on_page: 12.5,
      timestamp: new Date(Date.now() - 60_000).toISOString(),
      conversion_name: "order",
      revenue_cents: 4999,
      currency: "EUR",
      country_code: "de",
      city: "Berlin",
      region: "BE",
      device_type: "desktop",
      browser: "Firefox",
      browser_version: "128",
      os: "Linux",
      os_version: "6",
      properties: { plan: "pro", seats: 3, trial: false, coupon: null },
    };
    const bad = await postEvents(t, key, [full, { ...full, scroll_percent: 200 }]);
    expect(bad.status).toBe(400);
    const ok = await postEvents(t, key, [full]);
    expect(ok.status).toBe(202);
    expect(ok.body.data).toEqual({ message: expect.any(String), count: 1 });
    await t.flush();
    const events = await t.call(`/public-api/v1/journey/links/${fresh}/events`, { key });
    expect(events.body.data).toHaveLength(1);
    expect(events.body.data[0]).toMatchObject({
      ...full,
      link_id: fresh,
      country_code: "DE",
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
  });
});

describe("HTTP behaviour", () => {
  test("CORS preflight answers 204 without an API key", async () => {
    const res = await t.request("/public-api/v1/journey/events", {
      method: "OPTIONS",
      headers: { origin: "https://customer.example", "access-control-request-method": "POST" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("https://customer.example");
    expect(res.headers.get("access-control-allow-methods")).toBe("POST");
    expect(res.headers.get("access-control-allow-headers")).toBe("X-API-Key, X-Idempotency-Key, Content-Type");
    expect(res.headers.get("access-control-max-age")).toBe("86400");
    const noOrigin = await t.request("/public-api/v1/journey/events", { method: "OPTIONS" });
    expect(noOrigin.headers.get("access-control-allow-origin")).toBe("*");
  });

  test("POST answers carry CORS headers, errors included", async () => {
    const origin = { origin: "https://customer.example" };
    const ok = await postEvents(t, key, [pageView(link, "v")], origin);
    expect(ok.headers.get("access-control-allow-origin")).toBe("https://customer.example");
    const expose = ok.headers.get("access-control-expose-headers")!.toLowerCase();
    for (const h of ["x-journey-warning", "x-journey-usage", "retry-after"]) expect(expose).toContain(h);
    const unauth = await t.call("/public-api/v1/journey/events", { method: "POST", json: { events: [] }, headers: origin });
    expect(unauth.status).toBe(401);
    expect(unauth.headers.get("access-control-allow-origin")).toBe("https://customer.example");
  });

  test("is exempt from the hourly rate limit and sends no X-RateLimit headers", async () => {
    const free = await t.createAccount({ tier: "free" }); // 50 requests per hour
    const freeLink = await insertLink(t, free.accountId);
    for (let i = 0; i < 60; i++) {
      const res = await postEvents(t, free.key, [pageView(freeLink, `v${i}`)]);
      expect(res.status).toBe(202);
      expect(res.headers.get("x-ratelimit-limit")).toBeNull();
      expect(res.headers.get("x-ratelimit-remaining")).toBeNull();
      expect(res.headers.get("x-ratelimit-reset")).toBeNull();
    }
    expect(await totalEvents(freeLink, free.key)).toBe(60);
  });

  test("needs journey:write", async () => {
    const reader = await t.createAccount({ scopes: ["journey:read"] });
    const res = await postEvents(t, reader.key, [pageView(link, "v")]);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("INSUFFICIENT_PERMISSIONS");
  });

  test("counts accepted and rejected events in the metrics", async () => {
    const m = t.runtime.deps.metrics;
    const value = async (c: typeof m.eventsAccepted) => (await c.get()).values.reduce((s, v) => s + v.value, 0);
    const [a0, r0] = [await value(m.eventsAccepted), await value(m.eventsRejected)];
    await postEvents(t, key, [pageView(link, "v"), pageView(link, "v")]);
    await postEvents(t, key, [pageView(link, "v"), pageView(link, "v", { scroll_percent: 500 })]);
    expect(await value(m.eventsAccepted)).toBe(a0 + 2);
    expect(await value(m.eventsRejected)).toBe(r0 + 2);
  });
});

describe("conversion events", () => {
  test("emit one `conversion` webhook event per conversion event", async () => {
    const acc = await t.createAccount();
    const convLink = await insertLink(t, acc.accountId);
    await t.runtime.deps.pg.db.insert(webhookEndpoints).values({
      accountId: acc.accountId,
      url: "https://hooks.invalid/in",
      events: ["conversion"],
      secretEncrypted: "x",
    });
    const res = await postEvents(t, acc.key, [
      pageView(convLink, "buyer"),
      pageView(convLink, "buyer", { event_type: "conversion", conversion_name: "order", revenue_cents: 1500, currency: "USD" }),
      pageView(convLink, "buyer2", { event_type: "conversion", conversion_name: "signup" }),
    ]);
    expect(res.status).toBe(202);
    const rows = await t.runtime.deps.pg.query<{ payload: { event: string; data: Record<string, unknown> } }>(
      sql`select payload from webhook_deliveries where account_id = ${acc.accountId} and event_type = 'conversion'`,
    );
    expect(rows).toHaveLength(2);
    const names = rows.map((r) => r.payload.data.conversion_name).sort();
    expect(names).toEqual(["order", "signup"]);
    expect(rows.every((r) => r.payload.event === "conversion" && r.payload.data.link_id === convLink)).toBe(true);
  });
});
