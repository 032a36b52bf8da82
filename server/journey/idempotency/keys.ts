// Idempotency keys of journey batches, in the shared store (Redis with REDIS_URL, else process memory).
// A key is first "pending" (held by this process, short-lived) and becomes "done" only once its batch
// is durably spooled, so a crash in between never answers a retry "already processed" for a lost batch:
// - a retry that finds the key pending is told to retry shortly (503, Retry-After);
// - the batch's key is written to the idempotency journal with the batch (journal.ts);
// - a restarted instance (same DATA_DIR, same instance id) settles what its previous process left
//   pending: done when the journal says the spool recovered the batch, removed when it did not. Each
//   instance keeps the keys it holds pending in a set of its own, so it finds them without a scan.
// - a pending key of an instance that never comes back expires after PENDING_TTL_MS; then a retry is stored.
import type { Kv } from "../../storage/kv";
import type { JournalKey } from "./journal";

/** Longer than any spool write takes: a key must not expire while its batch is still being written. */
export const PENDING_TTL_MS = 60_000;
const DONE = "done";

export type Claim = "claimed" | "pending" | "done";

export class IdempotencyKeys {
  private readonly prefix: string;
  /** This process's pending value: a key pending under another process of this instance is its predecessor's. */
  private readonly pending: string;
  private readonly registry: string;

  constructor(
    private readonly kv: Kv,
    instanceId: string,
    private readonly windowMs: number,
  ) {
    this.prefix = `pending ${instanceId} `;
    this.pending = `${this.prefix}${crypto.randomUUID()}`;
    this.registry = `idem-pending:${instanceId}`;
  }

  async claim(key: string): Promise<Claim> {
    const held = await this.kv.claim(key, this.pending, PENDING_TTL_MS, this.registry);
    if (held === null) return "claimed";
    return held === DONE ? "done" : "pending";
  }

  /** The batch is durably spooled: retries within the window are answered "already processed". */
  async done(key: string, ttlMs = this.windowMs): Promise<void> {
    if (await this.kv.replace(key, this.pending, DONE, ttlMs, this.registry)) return;
    // Our pending key expired meanwhile (a very slow write): what is stored now is the truth.
    await this.kv.replace(key, null, DONE, ttlMs, this.registry);
  }

  /** The batch was not stored (refused or failed): a retry is stored. */
  async release(key: string): Promise<void> {
    await this.kv.replace(key, this.pending, null, 0, this.registry);
  }

  /**
   * After a restart: the keys the previous process of this instance left pending, and the journal's
   * keys whose batches the spool recovered (`stored`, unexpired), end up done or removed.
   */
  async settle(stored: readonly JournalKey[], nowMs = Date.now()): Promise<{ done: number; removed: number }> {
    const expiries = new Map(stored.map((k) => [k.key, k.expiresAt]));
    const keys = new Set([...expiries.keys(), ...(await this.kv.members(this.registry))]);
    let done = 0;
    let removed = 0;
    for (const key of keys) {
      const held = await this.kv.get(key);
      if (held === this.pending) continue; // this process's own, in flight
      const ttl = (expiries.get(key) ?? 0) - nowMs;
      const predecessors = held !== null && held.startsWith(this.prefix);
      if ((predecessors || held === null) && ttl > 0) {
        if (await this.kv.replace(key, held, DONE, ttl, this.registry)) done++;
      } else if (predecessors) {
        if (await this.kv.replace(key, held, null, 0, this.registry)) removed++;
      } else await this.kv.removeMember(this.registry, key);
    }
    return { done, removed };
  }
}
