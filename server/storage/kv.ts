// Shared short-lived state: idempotency keys (values and the sets registering them) and counters.
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
  get(key: string): Promise<string | null>;
  /**
   * Sets the key to `value` only if absent and, in the same step, adds it to the set `registry`;
   * null when this call set it, else the value it holds.
   */
  claim(key: string, value: string, ttlMs: number, registry: string): Promise<string | null>;
  /**
   * Only if the key holds `expected` (null: absent): sets it to `next` (null: deletes it) and removes it
   * from the set `registry`, in one step; true when applied.
   */
  replace(key: string, expected: string | null, next: string | null, ttlMs: number, registry: string): Promise<boolean>;
  members(set: string): Promise<string[]>;
  removeMember(set: string, member: string): Promise<void>;
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
  const values = new Map<string, { value: string; exp: number }>();
  const sets = new Map<string, Set<string>>();
  const valueOf = (key: string) => {
    const v = values.get(key);
    return v && v.exp > Date.now() ? v.value : null;
  };
  const windows = new Map<string, Map<number, number>>();
  const counters = new Map<string, { value: number; exp: number }>();
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [k, c] of counters) if (c.exp <= now) counters.delete(k);
    for (const [k, v] of values) if (v.exp <= now) values.delete(k);
  }, 60_000);
  sweep.unref?.();
  return {
    kind: "memory",
    async get(key) {
      return valueOf(key);
    },
    async claim(key, value, ttlMs, registry) {
      const current = valueOf(key);
      if (current !== null) return current;
      values.set(key, { value, exp: Date.now() + ttlMs });
      if (!sets.has(registry)) sets.set(registry, new Set());
      sets.get(registry)!.add(key);
      return null;
    },
    async replace(key, expected, next, ttlMs, registry) {
      if (valueOf(key) !== expected) return false;
      if (next === null) values.delete(key);
      else values.set(key, { value: next, exp: Date.now() + ttlMs });
      sets.get(registry)?.delete(key);
      return true;
    },
    async members(set) {
      return [...(sets.get(set) ?? [])];
    },
    async removeMember(set, member) {
      sets.get(set)?.delete(member);
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

// Set if absent and register, in one step: nil when set, else the value held.
const CLAIM_LUA = `
if redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then redis.call('SADD', KEYS[2], KEYS[1]); return false end
return redis.call('GET', KEYS[1])`;

// Compare and set (or delete, ARGV[2] empty with ARGV[4] = 1), unregistering the key: 1 when applied.
// ARGV[3] = 1 when the key is expected absent.
const REPLACE_LUA = `
local v = redis.call('GET', KEYS[1])
if ARGV[3] == '1' then if v then return 0 end elseif v ~= ARGV[1] then return 0 end
if ARGV[4] == '1' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[5]) end
redis.call('SREM', KEYS[2], KEYS[1])
return 1`;

function redisKv(url: string): Kv {
  const client = new RedisClient(url);
  return {
    kind: "redis",
    async get(key) {
      return ((await client.send("GET", [key])) as string | null) ?? null;
    },
    async claim(key, value, ttlMs, registry) {
      return ((await client.send("EVAL", [CLAIM_LUA, "2", key, registry, value, String(ttlMs)])) as string | null) ?? null;
    },
    async replace(key, expected, next, ttlMs, registry) {
      const args = [
        expected ?? "",
        next ?? "",
        expected === null ? "1" : "0",
        next === null ? "1" : "0",
        String(Math.max(1, Math.round(ttlMs))),
      ];
      return (await client.send("EVAL", [REPLACE_LUA, "2", key, registry, ...args])) === 1;
    },
    async members(set) {
      return ((await client.send("SMEMBERS", [set])) as string[] | null) ?? [];
    },
    async removeMember(set, member) {
      await client.send("SREM", [set, member]);
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
