// Which verified custom domain a request's Host names (null: not ours). Invalidated on verify/delete.
import { findVerifiedDomainId } from "./repository";
import type { Postgres } from "../storage/postgres/client";

const CHANNEL = "svc_domain_invalidate";
const TTL_MS = 60_000;

export class DomainHostCache {
  private readonly entries = new Map<string, { id: string | null; until: number }>();
  constructor(private readonly pg: Postgres) {}

  async listen(): Promise<void> {
    await this.pg.listen(CHANNEL, (host) => this.entries.delete(host));
  }

  peek(host: string): string | null | undefined {
    const e = this.entries.get(host);
    return e && e.until > Date.now() ? e.id : undefined;
  }

  async resolve(host: string): Promise<string | null> {
    const hit = this.peek(host);
    if (hit !== undefined) return hit;
    const id = await findVerifiedDomainId(this.pg.db, host);
    if (this.entries.size > 100_000) this.entries.clear();
    this.entries.set(host, { id, until: Date.now() + TTL_MS });
    return id;
  }

  async invalidate(host: string): Promise<void> {
    this.entries.delete(host);
    await this.pg.notify(CHANNEL, host).catch(() => {});
  }
}
