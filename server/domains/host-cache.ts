// Which verified custom domain a request's Host names (null: not ours). A verify or delete is applied
// here and on every other instance before it is answered (cluster/sync.ts).
import { findVerifiedDomainId } from "./repository";
import type { Postgres } from "../storage/postgres/client";
import type { CacheChannel, CacheSync } from "../cluster/sync";

const CHANNEL = "svc_domain_invalidate";
const TTL_MS = 60_000;

export class DomainHostCache {
  private readonly entries = new Map<string, { id: string | null; until: number }>();
  private channel: CacheChannel | null = null;
  /** Bumped by every change: a host read before a change arrived is not kept (the row may predate it). */
  private changes = 0;

  constructor(
    private readonly pg: Postgres,
    private readonly sync: CacheSync,
  ) {}

  async listen(): Promise<void> {
    this.channel = await this.sync.channel(CHANNEL, {
      apply: (host) => {
        this.changes++;
        this.entries.delete(host);
      },
      reset: () => {
        this.changes++;
        this.entries.clear();
      },
    });
  }

  peek(host: string): string | null | undefined {
    const now = performance.now();
    if (now > this.sync.validUntil) {
      if (this.entries.size > 0) this.entries.clear();
      return undefined;
    }
    const e = this.entries.get(host);
    return e && e.until > now ? e.id : undefined;
  }

  async resolve(host: string): Promise<string | null> {
    const hit = this.peek(host);
    if (hit !== undefined) return hit;
    const before = this.changes;
    const id = await findVerifiedDomainId(this.pg.db, host);
    const now = performance.now();
    if (this.changes !== before || now > this.sync.validUntil) return id;
    if (this.entries.size > 100_000) this.entries.clear();
    this.entries.set(host, { id, until: now + TTL_MS });
    return id;
  }

  async invalidate(host: string): Promise<void> {
    if (!this.channel) throw new Error("DomainHostCache.listen() was not called");
    await this.channel.publish([host]);
  }
}
