// An event the API would refuse is refused when the app tracks it, with the field named, and changes
// nothing (one bad event would otherwise cost the whole batch of up to 100); the SDK's limits are the
// server's. All of it is decided in the app: no request is made (the client's fetch refuses to be called).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createEventClient, InvalidEventError, type EventClient } from "../../event-sdk/src/index";
import * as sdk from "../../event-sdk/src/validate";
import * as server from "../../server/journey/model";

const BASE_URL = "http://127.0.0.1:9/public-api/v1";
const acc = { key: "svc_" + "k".repeat(28), linkId: crypto.randomUUID() };
const requests: string[] = [];
const noFetch = async (url: string) => {
  requests.push(url);
  throw new Error("no request expected");
};
let client: EventClient;
beforeAll(async () => {
  client = await createEventClient({ apiKey: acc.key, baseUrl: BASE_URL, linkId: acc.linkId, flushIntervalMs: 60_000, fetch: noFetch });
});
afterAll(async () => {
  await client.shutdown({ timeoutMs: 0 });
  expect(requests).toEqual([]);
});

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
    const bare = await createEventClient({ apiKey: acc.key, baseUrl: BASE_URL, fetch: noFetch });
    expect(refusal(() => bare.track("t")).message).toContain("set linkId");
    expect(bare.stats().queued).toBe(0);
  });

  test("bad options are refused when the client is created", async () => {
    await expect(createEventClient({ apiKey: "", baseUrl: BASE_URL, fetch: noFetch })).rejects.toThrow("apiKey");
    await expect(createEventClient({ apiKey: acc.key })).rejects.toThrow("baseUrl");
    await expect(createEventClient({ apiKey: acc.key, baseUrl: BASE_URL, fetch: noFetch, batchSize: 101 })).rejects.toThrow("batchSize");
  });

  test("after shutdown() tracking throws", async () => {
    const c = await createEventClient({ apiKey: acc.key, baseUrl: BASE_URL, fetch: noFetch, linkId: acc.linkId });
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
});
