// Shared short-lived state: idempotency keys and sliding-window counters.
// In process by default (single instance); Redis through Bun's client when REDIS_URL is set.
import { RedisClient } from "bun";

export interface WindowHit {
  allowed: boolean;
  /** Requests counted in the window, including this one when allowed. */
  count: number;
  /** Start (ms) of the oldest sub-window that still holds requests. */
  oldestMs: number;
}

export interface CounterResult {
  value: number;
  applied: boolean;
}

export interface Kv {
  kind: "memory" | "redis";
  /** Sets the key only if absent; true when this call set it. */
  setIfAbsent(key: string, ttlMs: number): Promise<boolean>;
  delete(key: string): Promise<void>;
  /** Counts a hit in a sliding window made of `slots` sub-windows of `slotMs`, refusing at `limit`. */
  hitWindow(key: string, limit: number, nowMs: number, slotMs: number, slots: number): Promise<WindowHit>;
  /**
   * Atomically adds `by` to a counter (an absent key starts at `initial`, default 0) unless the
   * result would exceed `max`; returns the counter after the call and whether `by` was applied.
   */
  incrBy(key: string, by: number, opts: { ttlMs: number; initial?: number; max?: number }): Promise<CounterResult>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export function openKv(redisUrl?: string): Kv {
  return redisUrl ? redisKv(redisUrl) : memoryKv();
}

function memoryKv(): Kv {
  const expiries = new Map<string, number>();
  const windows = new Map<string, Map<number, number>>();
  const counters = new Map<string, { value: number; exp: number }>();
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [k, exp] of expiries) if (exp <= now) expiries.delete(k);
    for (const [k, c] of counters) if (c.exp <= now) counters.delete(k);
  }, 60_000);
  sweep.unref?.();
  return {
    kind: "memory",
    async setIfAbsent(key, ttlMs) {
      const now = Date.now();
      const exp = expiries.get(key);
      if (exp !== undefined && exp > now) return false;
      expiries.set(key, now + ttlMs);
      return true;
    },
    async delete(key) {
      expiries.delete(key);
    },
    async hitWindow(key, limit, nowMs, slotMs, slots) {
      const slot = Math.floor(nowMs / slotMs);
      let buckets = windows.get(key);
      if (!buckets) windows.set(key, (buckets = new Map()));
      let count = 0;
      let oldest = slot;
      for (const [s, n] of buckets) {
        if (s <= slot - slots) buckets.delete(s);
        else {
          count += n;
          if (s < oldest) oldest = s;
        }
      }
      if (count >= limit) return { allowed: false, count, oldestMs: oldest * slotMs };
      buckets.set(slot, (buckets.get(slot) ?? 0) + 1);
      return { allowed: true, count: count + 1, oldestMs: oldest * slotMs };
    },
    async incrBy(key, by, { ttlMs, initial = 0, max }) {
      const now = Date.now();
      let c = counters.get(key);
      if (!c || c.exp <= now) counters.set(key, (c = { value: initial, exp: now + ttlMs }));
      if (max !== undefined && c.value + by > max) return { value: c.value, applied: false };
      c.value += by;
      c.exp = now + ttlMs;
      return { value: c.value, applied: true };
    },
    async ping() {},
    async close() {
      clearInterval(sweep);
    },
  };
}

// One round trip, atomic: prune old slots, count, and add this hit if under the limit.
const HIT_WINDOW_LUA = `
local slot = tonumber(ARGV[1]); local limit = tonumber(ARGV[2]); local slots = tonumber(ARGV[3]); local ttl = tonumber(ARGV[4])
local h = redis.call('HGETALL', KEYS[1]); local total = 0; local oldest = slot
for i = 1, #h, 2 do
  local s = tonumber(h[i])
  if s <= slot - slots then redis.call('HDEL', KEYS[1], h[i]) else
    total = total + tonumber(h[i + 1]); if s < oldest then oldest = s end
  end
end
if total >= limit then return {0, total, oldest} end
redis.call('HINCRBY', KEYS[1], slot, 1); redis.call('PEXPIRE', KEYS[1], ttl)
return {1, total + 1, oldest}`;

// Atomic capped increment; an absent key starts at ARGV[2].
const INCR_BY_LUA = `
local by = tonumber(ARGV[1]); local initial = tonumber(ARGV[2]); local max = tonumber(ARGV[3]); local ttl = tonumber(ARGV[4])
local cur = tonumber(redis.call('GET', KEYS[1]) or initial)
if max and cur + by > max then return {0, cur} end
redis.call('SET', KEYS[1], cur + by, 'PX', ttl)
return {1, cur + by}`;

function redisKv(url: string): Kv {
  const client = new RedisClient(url);
  return {
    kind: "redis",
    async setIfAbsent(key, ttlMs) {
      return (await client.send("SET", [key, "1", "PX", String(ttlMs), "NX"])) === "OK";
    },
    async delete(key) {
      await client.del(key);
    },
    async hitWindow(key, limit, nowMs, slotMs, slots) {
      const slot = Math.floor(nowMs / slotMs);
      const [allowed, count, oldest] = (await client.send("EVAL", [
        HIT_WINDOW_LUA,
        "1",
        key,
        String(slot),
        String(limit),
        String(slots),
        String(slotMs * (slots + 1)),
      ])) as number[];
      return { allowed: allowed === 1, count: Number(count), oldestMs: Number(oldest) * slotMs };
    },
    async incrBy(key, by, { ttlMs, initial = 0, max }) {
      const [applied, value] = (await client.send("EVAL", [
        INCR_BY_LUA,
        "1",
        key,
        String(by),
        String(initial),
        max === undefined ? "" : String(max),
        String(ttlMs),
      ])) as number[];
      return { value: Number(value), applied: applied === 1 };
    },
    async ping() {
      await client.send("PING", []);
    },
    async close() {
      client.close();
    },
  };
}
