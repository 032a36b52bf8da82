// The redirect's view of links: an in-memory cache keyed by (domain, code), filled from Postgres on a
// miss (one query however many requests wait), with short negative entries so scans of random codes
// cannot hammer the database. Every change is applied here and on every other instance before it is
// answered (cluster/sync.ts); while this instance's lease has lapsed the cache answers nothing.
import type { Postgres } from "../storage/postgres/client";
import type { CacheChannel, CacheSync } from "../cluster/sync";
import { packPayloads } from "../cluster/sync";
import { findLinkByCode, type LinkRow } from "./repository";
import { compileTargeting, type LinkTargeting } from "./cached-targeting";
import { UTM_FIELDS } from "./model";

const CHANNEL = "svc_link_invalidate";

export interface CachedLink {
  id: string;
  accountId: string;
  domainId: string | null;
  code: string;
  originalUrl: string;
  isActive: boolean;
  deleted: boolean;
  expiresAt: number | null;
  passwordHash: string | null;
  title: string | null;
  description: string | null;
  ogImage: string | null;
  trackConversions: boolean;
  utm: [string, string][];
  /** Rules, variants and click limit; null for a plain link (the fast path's only extra check). */
  targeting: LinkTargeting | null;
  expiredUrl: string | null;
  /** Set once this instance saw max_clicks reached; a change of the link reloads the entry, clearing it. */
  limitReached: boolean;
}

interface Entry {
  link: CachedLink | null;
  until: number;
}

const keyOf = (domainId: string | null, code: string) => `${domainId ?? ""}:${code}`;

export function toCachedLink(row: LinkRow): CachedLink {
  const utm: [string, string][] = [];
  for (const [field, column] of UTM_FIELDS) {
    const v = row[column];
    if (v) utm.push([field, v]);
  }
  return {
    id: row.id,
    accountId: row.accountId,
    domainId: row.domainId,
    code: row.shortCode,
    originalUrl: row.originalUrl,
    isActive: row.isActive,
    deleted: row.deletedAt !== null,
    expiresAt: row.expiresAt?.getTime() ?? null,
    passwordHash: row.passwordHash,
    title: row.title,
    description: row.description,
    ogImage: row.ogImage,
    trackConversions: row.trackConversions,
    utm,
    targeting: compileTargeting(row),
    expiredUrl: row.expiredUrl,
    limitReached: row.maxClicks !== null && row.countedClicks >= row.maxClicks,
  };
}

export class LinkCache {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<CachedLink | null>>();
  private channel: CacheChannel | null = null;

  constructor(
    private readonly pg: Postgres,
    private readonly sync: CacheSync,
    private readonly opts = { ttlMs: 10 * 60_000, negativeTtlMs: 30_000, maxEntries: 500_000 },
  ) {}

  async listen(): Promise<void> {
    // A payload is one key, or several separated by newlines (bulk changes); codes never hold a newline.
    this.channel = await this.sync.channel(CHANNEL, {
      apply: (payload) => {
        for (const key of payload.split("\n")) this.drop(key);
      },
      reset: () => {
        this.entries.clear();
        this.loading.clear();
      },
    });
  }

  /** Synchronous hit (the hot path), or undefined on a miss. */
  peek(domainId: string | null, code: string): CachedLink | null | undefined {
    const now = performance.now();
    if (now > this.sync.validUntil) return this.lapsed();
    const entry = this.entries.get(keyOf(domainId, code));
    if (!entry) return undefined;
    if (entry.until < now) {
      this.entries.delete(keyOf(domainId, code));
      return undefined;
    }
    return entry.link;
  }

  get(domainId: string | null, code: string): CachedLink | null | Promise<CachedLink | null> {
    const hit = this.peek(domainId, code);
    return hit !== undefined ? hit : this.load(domainId, code);
  }

  /** The lease lapsed: what is cached may be stale, so nothing is answered from it. */
  private lapsed(): undefined {
    if (this.entries.size > 0) this.entries.clear();
    return undefined;
  }

  private load(domainId: string | null, code: string): Promise<CachedLink | null> {
    const key = keyOf(domainId, code);
    let pending = this.loading.get(key);
    if (!pending) {
      const loaded: Promise<CachedLink | null> = findLinkByCode(this.pg.db, domainId, code)
        .then((row) => {
          const link = row ? toCachedLink(row) : null;
          // Not kept when a change to the link arrived meanwhile (the row read may predate it), nor while the lease has lapsed.
          if (this.loading.get(key) === loaded && performance.now() <= this.sync.validUntil) this.store(key, link);
          return link;
        })
        .finally(() => {
          if (this.loading.get(key) === loaded) this.loading.delete(key);
        });
      this.loading.set(key, loaded);
      pending = loaded;
    }
    return pending;
  }

  private drop(key: string): void {
    this.entries.delete(key);
    this.loading.delete(key); // the next request reads the link again rather than join a read from before the change
  }

  private store(key: string, link: CachedLink | null) {
    if (this.entries.size >= this.opts.maxEntries) {
      // Drop the oldest tenth (Map keeps insertion order): cheap and good enough for a bounded cache.
      let n = Math.ceil(this.opts.maxEntries / 10);
      for (const k of this.entries.keys()) {
        this.entries.delete(k);
        if (--n === 0) break;
      }
    }
    this.entries.set(key, { link, until: performance.now() + (link ? this.opts.ttlMs : this.opts.negativeTtlMs) });
  }

  /** After a change commits: applied here and on every other instance before this resolves. */
  async invalidate(domainId: string | null, code: string): Promise<void> {
    await this.invalidateMany([{ domainId, code }]);
  }

  /** Many links at once (a bulk import): the keys share payloads, each under Postgres' NOTIFY limit. */
  async invalidateMany(links: readonly { domainId: string | null; code: string }[]): Promise<void> {
    if (!this.channel) throw new Error("LinkCache.listen() was not called");
    await this.channel.publish(
      packPayloads(
        links.map(({ domainId, code }) => keyOf(domainId, code)),
        "\n",
      ),
    );
  }
}
