// The monthly journey event counter and its usage status (ok, soft_limit, hard_limit_approaching, blocked).
//
// Exact under concurrency without a Postgres round trip per request: the live counter is a capped
// atomic increment in the kv store (in process, or Redis INCRBY-style with REDIS_URL, shared by every
// instance), seeded from Postgres `monthly_usage` on first use; each instance adds its own accepted
// increments to Postgres in one upsert about every second. A batch is accepted only if the total
// after it stays within 150% of the limit; otherwise the whole batch is refused (429) and not counted.
import type { Kv } from "../storage/kv";
import type { DbOrTx } from "../storage/postgres/client";
import { addJourneyUsage, readJourneyUsage } from "./repository";

export type UsageStatus = "ok" | "soft_limit" | "hard_limit_approaching" | "blocked";

export interface Reservation {
  accountId: string;
  month: string;
  count: number;
  used: number;
  limit: number;
  status: UsageStatus;
}
export type ReserveResult = ({ ok: true } & Reservation) | { ok: false; used: number; limit: number; retryAfterSeconds: number };

export interface UsageMeter {
  reserve(accountId: string, limit: number, count: number, nowMs?: number): Promise<ReserveResult>;
  /** Gives back a reservation whose batch was not stored after all. */
  release(r: Reservation): Promise<void>;
  /** Writes the accumulated increments to Postgres (the journey job, about once a second). */
  persist(): Promise<void>;
  /** Waits for a write in progress, then writes what is left. */
  stop(): Promise<void>;
}

const COUNTER_TTL_MS = 35 * 86_400_000;

/** First day of the calendar month (UTC) as YYYY-MM-01. */
export const monthOf = (ms: number) => new Date(ms).toISOString().slice(0, 7) + "-01";

export function secondsUntilNextMonth(ms: number): number {
  const d = new Date(ms);
  const next = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  return Math.max(1, Math.ceil((next - ms) / 1000));
}

/** ok below 100%, soft_limit 100–120%, hard_limit_approaching above 120% up to 150%, blocked above. */
export function usageStatus(used: number, limit: number): UsageStatus {
  if (used * 2 > limit * 3) return "blocked";
  if (used * 5 > limit * 6) return "hard_limit_approaching";
  if (used >= limit) return "soft_limit";
  return "ok";
}

export function createUsageMeter(db: DbOrTx, kv: Kv): UsageMeter {
  const seeds = new Map<string, Promise<number>>();
  const pending = new Map<string, { accountId: string; month: string; n: number }>();
  let persisting: Promise<void> | null = null;

  const seed = (accountId: string, month: string) => {
    const id = `${accountId}:${month}`;
    let p = seeds.get(id);
    if (!p) {
      if (seeds.size > 100_000) seeds.clear();
      p = readJourneyUsage(db, accountId, month);
      p.catch(() => seeds.delete(id));
      seeds.set(id, p);
    }
    return p;
  };
  const addPending = (accountId: string, month: string, n: number) => {
    const id = `${accountId}:${month}`;
    const entry = pending.get(id);
    if (entry) entry.n += n;
    else pending.set(id, { accountId, month, n });
  };
  const persist = () => {
    persisting ??= (async () => {
      const rows = [...pending.values()]
        .filter((e) => e.n !== 0)
        .map((e) => ({ accountId: e.accountId, month: e.month, journeyEvents: e.n }));
      pending.clear();
      try {
        await addJourneyUsage(db, rows);
      } catch (err) {
        for (const r of rows) addPending(r.accountId, r.month, r.journeyEvents);
        throw err;
      }
    })().finally(() => {
      persisting = null;
    });
    return persisting;
  };

  return {
    async reserve(accountId, limit, count, nowMs = Date.now()) {
      const month = monthOf(nowMs);
      const initial = await seed(accountId, month);
      const max = Math.floor((limit * 3) / 2);
      const r = await kv.incrBy(`usage:journey:${accountId}:${month}`, count, { ttlMs: COUNTER_TTL_MS, initial, max });
      if (!r.applied) return { ok: false, used: r.value, limit, retryAfterSeconds: secondsUntilNextMonth(nowMs) };
      addPending(accountId, month, count);
      return { ok: true, accountId, month, count, used: r.value, limit, status: usageStatus(r.value, limit) };
    },
    async release(r) {
      const initial = await seed(r.accountId, r.month);
      await kv.incrBy(`usage:journey:${r.accountId}:${r.month}`, -r.count, { ttlMs: COUNTER_TTL_MS, initial });
      addPending(r.accountId, r.month, -r.count);
    },
    persist,
    async stop() {
      if (persisting) await persisting.catch(() => {});
      await persist();
    },
  };
}
