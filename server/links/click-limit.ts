// max_clicks: the exact count of a limited link's human clicks, shared by every instance through the
// links row in Postgres, and the link.expired event once a limit is reached.
//
// Redirects of limited links ask `take(link)`; the asks of one event-loop turn, and those that arrive
// while a statement is in flight, share one statement (group commit), so a busy link costs one round
// trip per batch rather than per click. A link seen at its limit answers at once, without a query,
// until a change of the link reloads its cache entry.
import { emitEvent } from "../events/bus";
import type { Postgres } from "../storage/postgres/client";
import type { CachedLink } from "./cache";
import { countLimitedClicks, markReachedLimits, type ReachedLimit } from "./repository";
import { shortUrl } from "./urls";

interface Ask {
  links: CachedLink[];
  waiters: { resolve: (granted: boolean) => void; reject: (err: unknown) => void }[];
}

export class ClickLimiter {
  private asks = new Map<string, Ask>();
  private running: Promise<void> | null = null;
  private scheduled = false;

  constructor(
    private readonly pg: Postgres,
    private readonly opts: { baseUrl: string; onError?: (err: unknown) => void },
  ) {}

  /** Resolves true when this click is within the link's limit (and is counted), false once it is reached. */
  take(link: CachedLink): Promise<boolean> {
    if (link.limitReached) return Promise.resolve(false);
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
      const counted = new Map(
        (await countLimitedClicks(this.pg, new Map([...asks].map(([id, a]) => [id, a.waiters.length])))).map((r) => [r.id, r]),
      );
      for (const [id, ask] of asks) {
        const c = counted.get(id);
        // No row: the link lost its limit (or was purged) since it was cached; its next load says so.
        const granted = c ? c.granted : ask.waiters.length;
        ask.waiters.forEach((w, i) => w.resolve(i < granted));
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

  /** Waits for the statement in flight (shutdown). */
  async drain(): Promise<void> {
    while (this.running || this.scheduled) await (this.running ?? new Promise((r) => setImmediate(r)));
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
    for (const link of rows) await emitEvent(tx, link.account_id, "link.expired", limitExpiredPayload(baseUrl, link));
    return rows.length;
  });
}

const limitExpiredPayload = (baseUrl: string, link: ReachedLimit) => ({
  id: link.id,
  short_code: link.short_code,
  short_url: shortUrl(baseUrl, link.short_code, link.domain_name),
  original_url: link.original_url,
  reason: "max_clicks",
  max_clicks: link.max_clicks,
  counted_clicks: Number(link.counted_clicks),
  max_clicks_url: link.max_clicks_url,
});
