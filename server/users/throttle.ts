// Attempts at sign-in, invitations, sign-up and reset requests, limited per client address and per email
// in sliding windows of the shared kv (Redis with REDIS_URL, so the limits hold across instances).
import { AppError } from "../errors";
import type { Kv } from "../storage/kv";

export interface ThrottleRule {
  name: string;
  limit: number;
  windowMinutes: number;
}

export const SIGN_IN_PER_ADDRESS: ThrottleRule = { name: "signin:ip", limit: 30, windowMinutes: 15 };
export const SIGN_IN_PER_EMAIL: ThrottleRule = { name: "signin:email", limit: 10, windowMinutes: 15 };
export const SIGN_UP_PER_ADDRESS: ThrottleRule = { name: "signup:ip", limit: 5, windowMinutes: 60 };
export const RESET_PER_ADDRESS: ThrottleRule = { name: "reset:ip", limit: 10, windowMinutes: 60 };
export const RESET_PER_EMAIL: ThrottleRule = { name: "reset:email", limit: 3, windowMinutes: 60 };

const SLOT_MS = 60_000;

/** Counts one attempt under each rule; throws RATE_LIMIT_EXCEEDED (with Retry-After) when one is spent. */
export async function throttle(kv: Kv, checks: [ThrottleRule, string][], nowMs = Date.now()): Promise<void> {
  for (const [rule, subject] of checks) {
    const hit = await kv.hitWindow(`${rule.name}:${subject}`, rule.limit, nowMs, SLOT_MS, rule.windowMinutes + 1);
    if (hit.allowed) continue;
    const wait = Math.max(1, Math.ceil((hit.oldestMs + SLOT_MS * (rule.windowMinutes + 1) - nowMs) / 1000));
    throw new AppError("RATE_LIMIT_EXCEEDED", `Too many attempts. Try again in ${wait} seconds.`, undefined, {
      "retry-after": String(wait),
    });
  }
}
