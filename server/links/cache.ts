// The redirect's view of links: an in-memory cache keyed by (domain, code), filled from Postgres on a
// miss (one query however many requests wait), with short negative entries so scans of random codes
// cannot hammer the database. Every change invalidates here and, through NOTIFY, on other instances.
import type { Postgres } from "../storage/postgres/client";
import { findLinkByCode, type LinkRow } from "./repository";
import { compileTargeting, type LinkTargeting } from "./cached-targeting";

const CHANNEL = "svc_link_invalidate";
/** Below Postgres' 8,000-byte NOTIFY payload limit (keys are ASCII: a UUID, a colon and a code of ≤ 64). */
const NOTIFY_PAYLOAD_BYTES = 7_500;

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
  for (const [k, v] of [
    ["utm_source", row.utmSource],
    ["utm_medium", row.utmMedium],
    ["utm_campaign", row.utmCampaign],
    ["utm_term", row.utmTerm],
    ["utm_content", row.utmContent],
  ] as const) {
    if (v) utm.push([k, v]);
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

  constructor(
    private readonly pg: Postgres,
    private readonly opts = { ttlMs: 10 * 60_000, negativeTtlMs: 30_000, maxEntries: 500_000 },
  ) {}

  async listen(): Promise<void> {
    // A payload is one key, or several separated by newlines (bulk changes); codes never hold a newline.
    await this.pg.listen(CHANNEL, (payload) => {
      for (const key of payload.split("\n")) this.entries.delete(key);
    });
  }

  /** Synchronous hit (the hot path), or undefined on a miss. */
  peek(domainId: string | null, code: string): CachedLink | null | undefined {
    const entry = this.entries.get(keyOf(domainId, code));
    if (!entry) return undefined;
    if (entry.until < Date.now()) {
      this.entries.delete(keyOf(domainId, code));
      return undefined;
    }
    return entry.link;
  }

  get(domainId: string | null, code: string): CachedLink | null | Promise<CachedLink | null> {
    const hit = this.peek(domainId, code);
    return hit !== undefined ? hit : this.load(domainId, code);
  }

  private load(domainId: string | null, code: string): Promise<CachedLink | null> {
    const key = keyOf(domainId, code);
    let pending = this.loading.get(key);
    if (!pending) {
      pending = findLinkByCode(this.pg.db, domainId, code)
        .then((row) => {
          const link = row ? toCachedLink(row) : null;
          this.store(key, link);
          return link;
        })
        .finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    return pending;
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
    this.entries.set(key, { link, until: Date.now() + (link ? this.opts.ttlMs : this.opts.negativeTtlMs) });
  }

  /** After a change commits: drop the entry here and on every other instance. */
  async invalidate(domainId: string | null, code: string): Promise<void> {
    await this.invalidateMany([{ domainId, code }]);
  }

  /** Many links at once (a bulk import): the keys share NOTIFYs, each under Postgres' 8,000-byte payload cap. */
  async invalidateMany(links: readonly { domainId: string | null; code: string }[]): Promise<void> {
    let payload = "";
    const notifies: Promise<void>[] = [];
    const send = () => {
      if (payload) notifies.push(this.pg.notify(CHANNEL, payload).catch(() => {}));
      payload = "";
    };
    for (const { domainId, code } of links) {
      const key = keyOf(domainId, code);
      this.entries.delete(key);
      if (payload.length + key.length + 1 > NOTIFY_PAYLOAD_BYTES) send();
      payload = payload ? `${payload}\n${key}` : key;
    }
    send();
    await Promise.all(notifies);
  }
}
