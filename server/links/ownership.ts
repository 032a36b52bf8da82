// Which link ids an account may send journey events for, cached in memory so ingest asks Postgres at
// most once per (account, link) every few seconds instead of once per event. Made once per runtime with
// the link cache (shared.ts); the answer is the reports' (findLiveLinkIds): live links of the account.
import type { DbOrTx } from "../storage/postgres/client";
import { findLiveLinkIds } from "./repository";

const OWNED_TTL_MS = 30_000; // a deleted link may still take events for up to this long
const UNKNOWN_TTL_MS = 2_000; // a link created a moment ago becomes usable quickly
const MAX_ENTRIES = 200_000;

export interface LinkOwnership {
  /** The ids among `ids` that are not live links of the account. */
  findUnknown(accountId: string, ids: Iterable<string>): Promise<Set<string>>;
}

export function createLinkOwnership(db: DbOrTx, now = () => Date.now()): LinkOwnership {
  const cache = new Map<string, { owned: boolean; until: number }>();
  return {
    async findUnknown(accountId, ids) {
      const t = now();
      const unknown = new Set<string>();
      const toLoad: string[] = [];
      for (const id of ids) {
        const hit = cache.get(`${accountId}:${id}`);
        if (hit && hit.until > t) {
          if (!hit.owned) unknown.add(id);
        } else toLoad.push(id);
      }
      if (toLoad.length === 0) return unknown;
      const owned = new Set(await findLiveLinkIds(db, accountId, toLoad));
      if (cache.size > MAX_ENTRIES) cache.clear();
      for (const id of toLoad) {
        const isOwned = owned.has(id);
        cache.set(`${accountId}:${id}`, { owned: isOwned, until: t + (isOwned ? OWNED_TTL_MS : UNKNOWN_TTL_MS) });
        if (!isOwned) unknown.add(id);
      }
      return unknown;
    },
  };
}
