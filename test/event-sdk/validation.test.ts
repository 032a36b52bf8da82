// An event the API would refuse is refused when the app tracks it, with the field named, and changes
// nothing (one bad event would otherwise cost the whole batch of up to 100). The SDK's rules are the
// server's: same limits, and on random events near every bound both sides agree.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { createEventClient, InvalidEventError, type EventClient } from "../../event-sdk/src/index";
import * as sdk from "../../event-sdk/src/validate";
import * as server from "../../server/journey/model";
import { accountWithLink, startSdkServer, type SdkServer } from "./helpers";

let s: SdkServer;
let acc: Awaited<ReturnType<typeof accountWithLink>>;
let client: EventClient;
beforeAll(async () => {
  s = await startSdkServer();
  acc = await accountWithLink(s.t);
  client = await createEventClient({ apiKey: acc.key, baseUrl: s.url, linkId: acc.linkId, flushIntervalMs: 60_000 });
}, 120_000);
afterAll(() => s.stop());

function refusal(fn: () => unknown): { field: string; message: string } {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidEventError);
    return { field: (err as InvalidEventError).field, message: (err as Error).message };
  }
  throw new Error("not refused");
}

describe("bad events are refused at track time", () => {
  test.each([
    ["a property value too long", () => client.track("t", { plan: "x".repeat(1025) }), "properties.plan"],
    ["an object as a property value", () => client.track("t", { plan: { tier: 1 } as never }), "properties.plan"],
    ["51 properties", () => client.track("t", Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]))), "properties"],
    [
      "properties over 4 KB",
      () => client.track("t", Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`k${i}`, "é".repeat(500)]))),
      "properties",
    ],
    ["revenue in a fraction of a cent", () => client.conversion("buy", { revenue_cents: 1.5 }), "revenue_cents"],
    ["a lower-case currency", () => client.conversion("buy", { revenue_cents: 100, currency: "eur" }), "currency"],
    ["an unknown field", () => client.track({ event_name: "t", colour: "red" } as never), "colour"],
    ["an event name over 256 characters", () => client.track("n".repeat(257)), "event_name"],
    ["an empty page URL", () => client.page(""), "page_url"],
    [
      "a timestamp two days ahead",
      () => client.track({ event_name: "t", timestamp: new Date(Date.now() + 2 * 86_400_000).toISOString() }),
      "timestamp",
    ],
    ["a link id that is not a UUID", () => client.track({ event_name: "t", link_id: "abc" }), "link_id"],
    ["scroll past 100%", () => client.track({ event_type: "scroll_depth", scroll_percent: 101 }), "scroll_percent"],
    ["a NUL in a property value", () => client.track("t", { plan: "a\u0000b" }), "properties.plan"],
    ["half a surrogate pair in an event name", () => client.track("t\ud83d"), "event_name"],
  ] as const)("%s", (_, act, field) => {
    const before = client.stats().queued;
    const r = refusal(act);
    expect(r.field).toBe(field);
    expect(r.message.startsWith(`${field}: `)).toBe(true);
    expect(client.stats().queued).toBe(before);
  });

  test("without a link id anywhere, tracking says where to set one", async () => {
    const bare = await createEventClient({ apiKey: acc.key, baseUrl: s.url });
    expect(refusal(() => bare.track("t")).message).toContain("set linkId");
    expect(bare.stats().queued).toBe(0);
  });

  test("bad options are refused when the client is created", async () => {
    await expect(createEventClient({ apiKey: "", baseUrl: s.url })).rejects.toThrow("apiKey");
    await expect(createEventClient({ apiKey: acc.key })).rejects.toThrow("baseUrl");
    await expect(createEventClient({ apiKey: acc.key, baseUrl: s.url, batchSize: 101 })).rejects.toThrow("batchSize");
  });

  test("after shutdown() tracking throws", async () => {
    const c = await createEventClient({ apiKey: acc.key, baseUrl: s.url, linkId: acc.linkId });
    await c.shutdown({ timeoutMs: 0 });
    expect(() => c.track("t")).toThrow("shut down");
  });
});

describe("the same rules as the server", () => {
  test("the limits are the server's", () => {
    expect(sdk.MAX_BATCH).toBe(server.MAX_BATCH);
    expect(sdk.MAX_PROPERTIES).toBe(server.MAX_PROPERTIES);
    expect(sdk.MAX_PROPERTIES_BYTES).toBe(server.MAX_PROPERTIES_BYTES);
    expect(sdk.MAX_PROPERTY_KEY).toBe(server.MAX_PROPERTY_KEY);
    expect(sdk.MAX_PROPERTY_VALUE).toBe(server.MAX_PROPERTY_VALUE);
    expect([...sdk.EVENT_TYPES]).toEqual([...server.EVENT_TYPES]);
    expect([...sdk.DEVICE_TYPES]).toEqual([...server.DEVICE_TYPES]);
  });

  test("on random events near every bound, the SDK refuses exactly what the server refuses", async () => {
    const now = Date.now();
    // Mostly valid values, now and then one at or just past a bound, so both verdicts come up often.
    const near = <T>(valid: fc.Arbitrary<T>, edge: fc.Arbitrary<T>) =>
      fc.oneof({ arbitrary: valid, weight: 6 }, { arbitrary: edge, weight: 1 });
    // Near the length bounds, and now and then with a NUL or half a surrogate pair (text the API refuses).
    const badText = fc.tuple(fc.string({ maxLength: 4 }), fc.constantFrom("\u0000", "\ud800", "\udc00")).map(([a, b]) => a + b);
    const text = (max: number) =>
      near(fc.string({ maxLength: 8 }), fc.oneof(fc.string({ minLength: max - 2, maxLength: max + 2, unit: "binary" }), badText));
    const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 2 });
    const event = fc.record({
      link_id: near(fc.constantFrom(acc.linkId, acc.linkId.toUpperCase()), fc.constant("not-a-uuid")),
      visitor_id: near(fc.constant("v1"), fc.oneof(fc.constant(""), text(128))),
      session_id: opt(text(128)),
      event_type: near(fc.constantFrom("page_view", "custom", "conversion", "scroll_depth"), fc.constant("click")),
      event_name: opt(text(256)),
      page_url: near(fc.constant("app://a/home"), fc.oneof(fc.constant(""), text(2048))),
      scroll_percent: opt(
        near(fc.integer({ min: 0, max: 100 }), fc.oneof(fc.constantFrom(-1, 101), fc.double({ min: 99.5, max: 100.5, noNaN: true }))),
      ),
      time_on_page: opt(near(fc.integer({ min: 0, max: 600 }), fc.double({ min: -0.5, max: 0.5, noNaN: true }))),
      revenue_cents: opt(near(fc.integer({ min: 0, max: 100_000 }), fc.constantFrom(-1, 1.5))),
      currency: opt(near(fc.constant("EUR"), fc.constantFrom("eur", "EU", "EURO"))),
      country_code: opt(near(fc.constantFrom("de", "DE"), fc.constantFrom("DEU", "1A"))),
      device_type: opt(near(fc.constantFrom("mobile", "tablet"), fc.constant("watch"))),
      os: opt(text(64)),
      timestamp: opt(
        near(
          fc.constantFrom(new Date(now - 60_000).toISOString(), "2026-01-01T10:00"),
          fc.constantFrom(new Date(now + 2 * 86_400_000).toISOString(), new Date(now - 1826 * 86_400_000).toISOString(), "yesterday"),
        ),
      ),
      properties: opt(
        near(
          fc.dictionary(
            fc.string({ minLength: 1, maxLength: 8 }).filter((k) => k !== "__proto__"),
            fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.boolean(), fc.constant(null)),
            { maxKeys: 5 },
          ),
          fc.dictionary(
            fc.string({ minLength: 0, maxLength: 66 }).filter((k) => k !== "__proto__"),
            fc.oneof(fc.string({ minLength: 1000, maxLength: 1030 }), fc.integer(), fc.boolean(), fc.constant(null)),
            { minKeys: 1, maxKeys: 55 },
          ),
        ),
      ),
    });
    let accepted = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(event, async (e) => {
        const clean = Object.fromEntries(Object.entries(e).filter(([, v]) => v !== undefined));
        let sdkOk = true;
        try {
          sdk.validateEvent({ ...clean } as never, Date.now());
        } catch {
          sdkOk = false;
        }
        const res = await s.t.call("/public-api/v1/journey/events", { method: "POST", key: acc.key, json: { events: [clean] } });
        expect(res.status === 202 || res.status === 400).toBe(true);
        if (res.status === 202) accepted++;
        else refused++;
        return sdkOk === (res.status === 202);
      }),
      { numRuns: 300, seed: 18 },
    );
    expect(accepted).toBeGreaterThan(20);
    expect(refused).toBeGreaterThan(20);
  }, 120_000);
});
