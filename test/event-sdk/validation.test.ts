// The SDK's rules are the server's: on random events near every bound, the SDK refuses exactly what
// our server refuses (test/event-sdk/track-validation.unit.test.ts has the refusals themselves).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import * as sdk from "../../event-sdk/src/validate";
import * as server from "../../server/journey/model";
import { accountWithLink, startSdkServer, type SdkServer } from "./helpers";

let s: SdkServer;
let acc: Awaited<ReturnType<typeof accountWithLink>>;
beforeAll(async () => {
  s = await startSdkServer();
  acc = await accountWithLink(s.t);
}, 120_000);
afterAll(() => s.stop());

describe("the same rules as the server", () => {
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
