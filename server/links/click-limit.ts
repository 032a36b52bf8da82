// max_clicks: the count of a limited link's human clicks in Postgres (links.counted_clicks), exact
// across instances and restarts, and the link.expired event once a limit is reached.
//
// Redirects of limited links ask `take(link)`; the asks of one event-loop turn, and those that arrive
// while a statement is in flight, share one statement (group commit). With a Postgres server (which
// several instances may share) every click is counted by such a statement before its redirect. With
// embedded PGlite (one process by construction, and a statement costs the redirect's own CPU) a link
// far from its limit is leased a block of clicks that this process serves from memory: a second of the
// link's traffic (measured on its previous lease; at least 2,000, at most 100,000) and never more than a
// twentieth of what remains. Unused clicks go back after a second without use and at shutdown; a
// kill -9 loses the unused part of a lease (the link reaches its limit that many clicks early).
// The last twenty or so clicks of a limit are always counted one statement per batch. A link seen at
// its limit answers at once, without a query, until a change of the link reloads its cache entry.
import { emitEvent } from "../webhooks/outbox";
import type { Postgres } from "../storage/postgres/client";
import type { CachedLink } from "./cache";
import { countLimitedClicks, markReachedLimits, returnLeasedClicks, type ReachedLimit } from "./repository";
import { shortUrl } from "./urls";
import { domainNamesOf } from "./domain-names";

interface Ask {
  links: CachedLink[];
  waiters: { resolve: (granted: boolean) => void; reject: (err: unknown) => void }[];
}

interface Lease {
  left: number;
  /** The limit it was granted under: a changed limit (PATCH) gives it back. */
  max: number | null;
  usedAt: number;
  size: number;
  grantedAt: number;
}

const LEASE_IDLE_MS = 1_000;
/** A lease is a second of the link's traffic, within these bounds. */
const LEASE_MIN = 2_000;
const LEASE_MAX = 100_000;

export class ClickLimiter {
  private asks = new Map<string, Ask>();
  private running: Promise<void> | null = null;
  private scheduled = false;
  private readonly leasing: boolean;
  private readonly leases = new Map<string, Lease>();
  /** The next lease of a link whose last one ran out: its clicks per second then. */
  private readonly leaseCaps = new Map<string, number>();
  private returning: Promise<void> = Promise.resolve();
  private readonly idleTimer: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly pg: Postgres,
    private readonly opts: { baseUrl: string; onError?: (err: unknown) => void },
  ) {
    this.leasing = pg.kind === "pglite";
    if (this.leasing) {
      this.idleTimer = setInterval(() => this.returnLeases(Date.now() - LEASE_IDLE_MS), LEASE_IDLE_MS);
      this.idleTimer.unref?.();
    }
  }

  /** true when this click is within the link's limit (and is counted), false once it is reached. */
  take(link: CachedLink): boolean | Promise<boolean> {
    if (link.limitReached) return false;
    const lease = this.leases.get(link.id);
    if (lease) {
      if (lease.max !== link.targeting?.maxClicks) this.returnLeases(Number.POSITIVE_INFINITY, link.id);
      else if (lease.left > 0) {
        lease.left--;
        lease.usedAt = Date.now();
        return true;
      } else if (!this.leaseCaps.has(link.id)) {
        const rate = (lease.size * 1000) / Math.max(1, Date.now() - lease.grantedAt);
        this.leaseCaps.set(link.id, Math.round(Math.min(LEASE_MAX, Math.max(LEASE_MIN, rate))));
      }
    }
    let ask = this.asks.get(link.id);
    if (!ask) this.asks.set(link.id, (ask = { links: [], waiters: [] }));
    if (!ask.links.includes(link)) ask.links.push(link);
    const answer = new Promise<boolean>((resolve, reject) => ask.waiters.push({ resolve, reject }));
    this.schedule();
    return answer;
  }

  private schedule() {
    if (this.scheduled || this.running) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.running = this.run().finally(() => {
        this.running = null;
        if (this.asks.size) this.schedule();
      });
    });
  }

  private async run() {
    const asks = this.asks;
    this.asks = new Map();
    const reached: string[] = [];
    try {
      const asked = new Map([...asks].map(([id, a]) => [id, a.waiters.length]));
      const caps = this.leasing ? new Map([...asks.keys()].map((id) => [id, this.leaseCaps.get(id) ?? LEASE_MIN])) : undefined;
      for (const id of asks.keys()) this.leaseCaps.delete(id);
      const counted = new Map((await countLimitedClicks(this.pg, asked, caps)).map((r) => [r.id, r]));
      for (const [id, ask] of asks) {
        const c = counted.get(id);
        // No row: the link lost its limit (or was purged) since it was cached; its next load says so.
        const granted = c ? c.granted : ask.waiters.length;
        ask.waiters.forEach((w, i) => w.resolve(i < granted));
        const extra = granted - ask.waiters.length;
        const now = Date.now();
        if (c && extra > 0) {
          // Should a lease be granted while one is held (asks that came while a statement was in flight),
          // the two add up: replacing it would leave its clicks counted and never served.
          const held = this.leases.get(id);
          const left = extra + (held && held.max === c.max ? held.left : 0);
          this.leases.set(id, { left, max: c.max, usedAt: now, size: left, grantedAt: now });
        }
        // A lease never takes the last click (it is a twentieth of what remains), so at the limit every
        // granted click has been served.
        if (c && c.counted >= c.max) {
          for (const link of ask.links) link.limitReached = true;
          if (c.granted > 0) reached.push(id);
        }
      }
    } catch (err) {
      for (const ask of asks.values()) for (const w of ask.waiters) w.reject(err);
      this.opts.onError?.(err);
    }
    // Not awaited: the next batch need not wait for the event (the sweeper announces what this misses).
    if (reached.length) void announceReachedLimits(this.pg, this.opts.baseUrl, reached).catch((err) => this.opts.onError?.(err));
  }

  /** Gives back the unused clicks of leases last used before `idleSince` (or of one link). */
  private returnLeases(idleSince: number, only?: string) {
    const unused = new Map<string, number>();
    for (const [id, lease] of this.leases) {
      if ((only === undefined || id === only) && lease.usedAt < idleSince) {
        if (lease.left > 0) unused.set(id, lease.left);
        this.leases.delete(id);
        this.leaseCaps.delete(id);
      }
    }
    if (unused.size === 0) return;
    this.returning = this.returning.then(() => returnLeasedClicks(this.pg, unused)).catch((err) => this.opts.onError?.(err));
  }

  /** Waits for the statement in flight and gives back every unused lease: the count is then the clicks served. */
  async settle(): Promise<void> {
    while (this.running || this.scheduled) await (this.running ?? new Promise((r) => setImmediate(r)));
    this.returnLeases(Number.POSITIVE_INFINITY);
    await this.returning;
  }

  /** Shutdown. */
  async drain(): Promise<void> {
    if (this.idleTimer) clearInterval(this.idleTimer);
    await this.settle();
  }
}

export const LIMIT_SWEEP_BATCH = 200;

/**
 * Emits link.expired (reason max_clicks) for limited links that reached their limit, once each: the
 * mark and the event share a transaction. The redirect calls it for the links it saw reach the limit;
 * the expiry sweeper calls it for any (after a crash between the two).
 */
export async function announceReachedLimits(pg: Postgres, baseUrl: string, ids: string[] | null = null): Promise<number> {
  return pg.db.transaction(async (tx) => {
    const rows = await markReachedLimits(pg, tx, ids, LIMIT_SWEEP_BATCH);
    const names = await domainNamesOf(tx, rows);
    for (const link of rows) await emitEvent(tx, link.account_id, "link.expired", limitExpiredPayload(baseUrl, link, names));
    return rows.length;
  });
}

const limitExpiredPayload = (baseUrl: string, link: ReachedLimit, domainNames: Map<string, string>) => ({
  id: link.id,
  short_code: link.short_code,
  short_url: shortUrl(baseUrl, link.short_code, link.domain_id && domainNames.get(link.domain_id)),
  original_url: link.original_url,
  reason: "max_clicks",
  max_clicks: link.max_clicks,
  counted_clicks: Number(link.counted_clicks),
  max_clicks_url: link.max_clicks_url,
});
