// The SDK's retry timing: equal-jitter backoff and the Retry-After header (delivery.test.ts watches
// the gaps between real attempts).
import { expect, test } from "bun:test";
import { backoffMs, retryAfterMs } from "../../event-sdk/src/retry";

test("backoff doubles per failed attempt, with jitter, up to maxMs", () => {
  // Equal jitter: a point in the upper half of base·2^(n-1), capped.
  expect(backoffMs(1, { baseMs: 1000 }, () => 0)).toBe(500);
  expect(backoffMs(1, { baseMs: 1000 }, () => 1)).toBe(1000);
  expect(backoffMs(4, { baseMs: 1000 }, () => 0)).toBe(4000);
  expect(backoffMs(40, { baseMs: 1000, maxMs: 60_000 }, () => 1)).toBe(60_000);
  const samples = new Set(Array.from({ length: 20 }, () => backoffMs(3, { baseMs: 1000 })));
  expect(samples.size).toBeGreaterThan(1);
  for (const v of samples) expect(v >= 2000 && v <= 4000).toBe(true);
  expect(retryAfterMs("7", 0)).toBe(7000);
  expect(retryAfterMs(new Date(60_000).toUTCString(), 0)).toBe(60_000);
  expect(retryAfterMs("soon", 0)).toBeNull();
});
