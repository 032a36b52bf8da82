// POST /journey/events in the compact form (what t.js sends): the same events as the object form,
// the idempotency key in the body, and every mistake refused naming the field, with nothing stored.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";
import { insertLink, postEvents } from "./helpers";
import { JourneyEventSchema } from "../../server/journey/model";
import { COMPACT_TAILS } from "../../server/journey/compact";

let t: TestApp;
let key: string;
let accountId: string;
let rejectedLink: string; // receives only batches that must be refused
beforeAll(async () => {
  t = await createTestApp();
  ({ key, accountId } = await t.createAccount());
  rejectedLink = await insertLink(t, accountId);
}, 60_000);
afterAll(() => t.close());

const PATH = "/public-api/v1/journey/events";
const postCompact = (body: unknown, headers: Record<string, string> = {}) =>
  t.call(PATH, { method: "POST", key, body: JSON.stringify(body), headers: { "content-type": "text/plain;charset=UTF-8", ...headers } });
const listEvents = async (link: string) => {
  await t.flush();
  const res = await t.call(`/public-api/v1/journey/links/${link}/events?limit=200`, { key });
  expect(res.status).toBe(200);
  return (res.body.data as Record<string, unknown>[]).map(({ id: _, link_id: __, ...e }) => e);
};
const byTime = (a: Record<string, unknown>, b: Record<string, unknown>) => String(a.timestamp).localeCompare(String(b.timestamp));

test("every field of the compact form is a field of the object form", () => {
  for (const fields of Object.values(COMPACT_TAILS)) for (const f of fields) expect(JourneyEventSchema.properties).toHaveProperty(f);
});

test("a compact batch is stored as the same events as its object form", async () => {
  const [compactLink, objectLink] = [await insertLink(t, accountId), await insertLink(t, accountId)];
  const ms = Date.now() - 60_000;
  const common = (link: string, i: number) =>
    [link, "visitor-1", "session-1", `https://shop.example/p${i}`, `Page ${i}`, i % 3, ms + i * 1000] as const;
  const compact = (link: string) => [
    [0, ...common(link, 0), { language: "de-DE" }],
    [1, ...common(link, 1), 50],
    [2, ...common(link, 2), 12],
    [3, ...common(link, 3), "signup_click", { plan: "pro", seats: 3, trial: false, coupon: null }],
    [4, ...common(link, 4), "purchase", { order: "A-17" }, 4999, "EUR", "purchase"],
    [3, link, "visitor-1", null, "https://shop.example/p5", null, null, ms + 5000, "bare", null], // null: absent
  ];
  const obj = (i: number, type: string, extra: Record<string, unknown>) => ({
    link_id: objectLink,
    visitor_id: "visitor-1",
    session_id: "session-1",
    event_type: type,
    page_url: `https://shop.example/p${i}`,
    page_title: `Page ${i}`,
    device_type: ["mobile", "tablet", "desktop"][i % 3],
    timestamp: new Date(ms + i * 1000).toISOString(),
    ...extra,
  });
  const objects = [
    obj(0, "page_view", { properties: { language: "de-DE" } }),
    obj(1, "scroll_depth", { scroll_percent: 50 }),
    obj(2, "time_on_page", { time_on_page: 12 }),
    obj(3, "custom", { event_name: "signup_click", properties: { plan: "pro", seats: 3, trial: false, coupon: null } }),
    obj(4, "conversion", {
      event_name: "purchase",
      properties: { order: "A-17" },
      revenue_cents: 4999,
      currency: "EUR",
      conversion_name: "purchase",
    }),
    {
      link_id: objectLink,
      visitor_id: "visitor-1",
      event_type: "custom",
      page_url: "https://shop.example/p5",
      timestamp: new Date(ms + 5000).toISOString(),
      event_name: "bare",
    },
  ];
  const res = await postCompact([crypto.randomUUID(), ...compact(compactLink)]);
  expect(res.status).toBe(202);
  expect(res.body.data).toEqual({ message: expect.any(String), count: 6 });
  expect((await postEvents(t, key, objects)).status).toBe(202);

  const [fromCompact, fromObjects] = [await listEvents(compactLink), await listEvents(objectLink)];
  expect(fromCompact).toHaveLength(6);
  expect(fromCompact.sort(byTime)).toEqual(fromObjects.sort(byTime));
  expect(fromCompact[4]).toMatchObject({ event_type: "conversion", revenue_cents: 4999, currency: "EUR", device_type: "tablet" });
});

describe("the idempotency key in the body", () => {
  test("a repeat under the same key is answered already_processed and stored once", async () => {
    const link = await insertLink(t, accountId);
    const body = [crypto.randomUUID(), [3, link, "v", "s", "https://shop.example/", "", 2, Date.now(), "once", null]];
    expect((await postCompact(body)).body.data).toEqual({ message: expect.any(String), count: 1 });
    expect((await postCompact(body)).body.data).toEqual({ message: "Batch already processed", count: 0, already_processed: true });
    // The header names the same key space: the same key as a header is the same batch.
    const viaHeader = await postCompact([null, ...body.slice(1)], { "x-idempotency-key": body[0] as string });
    expect(viaHeader.body.data.already_processed).toBe(true);
    expect(await listEvents(link)).toHaveLength(1);
  });

  test("a null key stores every post; a key equal to the header's is accepted", async () => {
    const link = await insertLink(t, accountId);
    const event = [3, link, "v", "s", "https://shop.example/", "", 2, Date.now(), "each", null];
    expect((await postCompact([null, event])).status).toBe(202);
    expect((await postCompact([null, event])).status).toBe(202);
    const k = crypto.randomUUID();
    expect((await postCompact([k, event], { "x-idempotency-key": k })).status).toBe(202);
    expect(await listEvents(link)).toHaveLength(3);
  });
});

describe("validation", () => {
  const k = "batch-key-1";
  const ok = () => [0, rejectedLink, "v", "s", "https://shop.example/", "Home", 2, Date.now(), { language: "en" }];
  const withValue = (i: number, v: unknown) => {
    const e: unknown[] = ok();
    e[i] = v;
    return e;
  };
  // Bodies are built in the test: the link exists only after beforeAll.
  const cases: [string, () => unknown, string][] = [
    ["an event that is not an array", () => [k, ok(), { event_type: "page_view" }], "body.events.1"],
    ["an unknown type code", () => [k, ok(), withValue(0, 5)], "body.events.1.event_type"],
    ["a type code as a string", () => [k, ok(), withValue(0, "0")], "body.events.1.event_type"],
    ["fewer than 8 values", () => [k, ok(), ok().slice(0, 7)], "body.events.1"],
    ["more values than the type has", () => [k, ok(), [...ok(), "extra"]], "body.events.1"],
    ["an unknown device code", () => [k, ok(), withValue(6, 3)], "body.events.1.device_type"],
    ["a device type as a name", () => [k, ok(), withValue(6, "mobile")], "body.events.1.device_type"],
    ["a timestamp as an ISO string", () => [k, ok(), withValue(7, new Date().toISOString())], "body.events.1.timestamp"],
    ["a fractional timestamp", () => [k, ok(), withValue(7, Date.now() + 0.5)], "body.events.1.timestamp"],
    ["a negative timestamp", () => [k, ok(), withValue(7, -1)], "body.events.1.timestamp"],
    ["a timestamp 2 days ahead", () => [k, ok(), withValue(7, Date.now() + 2 * 86_400_000)], "body.events.1.timestamp"],
    ["a missing link_id", () => [k, ok(), withValue(1, null)], "body.events.1.link_id"],
    ["a page_url over 2048 characters", () => [k, ok(), withValue(4, "x".repeat(2049))], "body.events.1.page_url"],
    ["nested properties", () => [k, ok(), withValue(8, { a: { b: 1 } })], "body.events.1.properties"],
    ["scroll_percent above 100", () => [k, ok(), [1, ...ok().slice(1, 8), 101]], "body.events.1.scroll_percent"],
    [
      "revenue_cents not an integer",
      () => [k, ok(), [4, ...ok().slice(1, 8), "buy", null, 12.5, "EUR", "buy"]],
      "body.events.1.revenue_cents",
    ],
    ["a currency in lower case", () => [k, ok(), [4, ...ok().slice(1, 8), "buy", null, 100, "eur", "buy"]], "body.events.1.currency"],
    ["a key that is not a string", () => [5, ok()], "body.0"],
    ["an empty key", () => ["", ok()], "body.0"],
    ["a key with a space", () => ["a b", ok()], "body.0"],
    ["no events", () => [k], "body"],
    ["101 events", () => [k, ...Array.from({ length: 101 }, ok)], "body"],
  ];
  for (const [name, body, field] of cases) {
    test(`${name} → 400 naming ${field}`, async () => {
      const res = await postCompact(body());
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
      expect(res.body.error.details.fields[0].field).toBe(field);
      expect(res.body.error.message).toContain(field);
    });
  }

  test("a body key that differs from the header's → 400 naming body.0", async () => {
    const res = await postCompact(["one", ok()], { "x-idempotency-key": "two" });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fields[0].field).toBe("body.0");
  });

  test("an event on another account's link → 400 naming its link_id", async () => {
    const other = await t.createAccount();
    const foreign = await insertLink(t, other.accountId);
    const res = await postCompact([k, ok(), withValue(1, foreign)]);
    expect(res.status).toBe(400);
    expect(res.body.error.details.fields[0]).toMatchObject({ field: "body.events.1.link_id", index: 1 });
  });

  test("nothing of a refused batch was stored", async () => {
    const res = await postCompact([crypto.randomUUID(), ok()]);
    expect(res.status).toBe(202);
    expect(await listEvents(rejectedLink)).toHaveLength(1); // the one good batch, none of the refused ones
  });
});
