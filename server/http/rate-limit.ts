// Sliding one-hour window per API key, counted in one-minute slots (in process or in Redis).
import { AppError } from "../errors";
import type { Kv } from "../storage/kv";

const SLOT_MS = 60_000;
// The current minute and the 60 before it: every request of the last hour is still counted (some up
// to a minute longer), so no hour ever holds more than the budget. With 60 slots a minute's requests
// left up to 59 s early, and a key could make twice its budget within 59 minutes.
const SLOTS = 61;

export interface RateLimitResult {
  headers: Record<string, string>;
}

/** Counts the request; throws RATE_LIMIT_EXCEEDED (string form, Retry-After) when over budget. */
export async function enforceRateLimit(kv: Kv, keyId: string, limit: number, nowMs = Date.now()): Promise<RateLimitResult> {
  const hit = await kv.hitWindow(`rl:${keyId}`, limit, nowMs, SLOT_MS, SLOTS);
  const reset = Math.ceil((hit.oldestMs + SLOT_MS * SLOTS) / 1000);
  const headers = {
    "x-ratelimit-limit": String(limit),
    "x-ratelimit-remaining": String(Math.max(0, limit - hit.count)),
    "x-ratelimit-reset": String(reset),
  };
  if (hit.allowed) return { headers };
  const wait = Math.max(1, reset - Math.floor(nowMs / 1000));
  throw new AppError("RATE_LIMIT_EXCEEDED", `Rate limit of ${limit} requests per hour exceeded. Try again in ${wait} seconds.`, undefined, {
    ...headers,
    "retry-after": String(wait),
  });
}
