// The fast batch check never accepts what the wire schema refuses, and accepts the valid batches
// clients send (anything else gets the schema's verdict).
import { expect, test } from "bun:test";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { JourneyBatchSchema } from "../../server/journey/model";
import { isJourneyBatchFast } from "../../server/journey/validate";

const schema = TypeCompiler.Compile(JourneyBatchSchema);

test("the fast check accepts only schema-valid batches, and nearly all of them", () => {
  let seed = 11;
  const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  const pick = <T>(xs: T[]) => xs[random(xs.length)];
  const values: unknown[] = [
    "",
    "x",
    "x".repeat(1025),
    0,
    -1,
    1.5,
    1e20,
    NaN,
    true,
    null,
    undefined,
    [],
    [1],
    {},
    { a: 1 },
    "DE",
    "usd",
    "USD",
    "2024-01-01T00:00:00Z",
    crypto.randomUUID(),
    "page_view",
    "conversion",
    "mobile",
    "tv",
  ];
  const fields = [
    "link_id",
    "visitor_id",
    "session_id",
    "event_type",
    "event_name",
    "page_url",
    "scroll_percent",
    "timestamp",
    "revenue_cents",
    "currency",
    "country_code",
    "device_type",
    "properties",
    "extra",
    "__proto__",
    "constructor",
  ];
  const event = () => {
    const e: Record<string, unknown> = {
      link_id: crypto.randomUUID(),
      visitor_id: "v",
      event_type: "custom",
      page_url: "https://a.example/",
    };
    for (let i = random(4); i > 0; i--) e[pick(fields)] = pick(values);
    if (random(2)) {
      const props: Record<string, unknown> = {};
      for (let i = random(60); i > 0; i--) props[pick(["k", "a\nb", "", "x".repeat(70), `k${random(100)}`])] = pick(values);
      e.properties = props;
    }
    return e;
  };
  let valid = 0;
  let fast = 0;
  for (let round = 0; round < 3000; round++) {
    const body =
      random(20) === 0 ? pick(values) : { events: Array.from({ length: random(3) }, event), ...(random(30) === 0 ? { more: 1 } : {}) };
    const verdict = schema.Check(body);
    if (isJourneyBatchFast(body)) {
      expect(verdict).toBe(true);
      fast += 1;
    }
    if (verdict) valid += 1;
  }
  expect(valid).toBeGreaterThan(300); // the generator reaches both verdicts
  // The fast check refuses valid batches only for a `properties` key the schema's pattern skips (a line break).
  expect(fast).toBeGreaterThan(valid * 0.9);
});
