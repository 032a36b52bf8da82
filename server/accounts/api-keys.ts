// API key format, hashing, and the cached key → principal resolver used by every /public-api route.
import type { Postgres } from "../storage/postgres/client";
import type { CacheSync } from "../cluster/sync";
import type { KeyResolver } from "../http/auth";
import type { Principal } from "./principal";
import { findLiveKeyByHash, touchKeysLastUsed } from "./repository";

const INVALIDATE_CHANNEL = "svc_key_invalidate";
const CACHE_TTL_MS = 60_000;

/** `svc_` + 28 URL-safe characters from 21 random bytes: 32 characters, 168 bits. */
export function generateApiKey(): { key: string; prefix: string; hash: string } {
  const key = "svc_" + Buffer.from(crypto.getRandomValues(new Uint8Array(21))).toString("base64url");
  return { key, prefix: key.slice(0, 8), hash: hashApiKey(key) };
}

export const hashApiKey = (key: string) => new Bun.CryptoHasher("sha256").update(key).digest("hex");

export interface CachedKeyResolver extends KeyResolver {
  /** Drops cached principals for an account (all keys) or one key, here and on every other instance. */
  invalidate(target: { accountId?: string; keyId?: string }): Promise<void>;
  close(): void;
}

export async function createKeyResolver(pg: Postgres, sync: CacheSync): Promise<CachedKeyResolver> {
  const cache = new Map<string, { principal: Principal; at: number }>();
  const used = new Set<string>();
  // Bumped by every change: a principal read before a change arrived is not kept (the row may predate it).
  let changes = 0;
  const channel = await sync.channel(INVALIDATE_CHANNEL, {
    apply: (payload) => {
      changes++;
      const [kind, id] = payload.split(":");
      for (const [hash, entry] of cache) {
        if ((kind === "account" && entry.principal.account.id === id) || (kind === "key" && entry.principal.keyId === id))
          cache.delete(hash);
      }
    },
    reset: () => {
      changes++;
      cache.clear();
    },
  });
  // last_used_at is informational: written in batches, never on the request path.
  const touch = setInterval(async () => {
    if (used.size === 0) return;
    const ids = [...used];
    used.clear();
    await touchKeysLastUsed(pg, ids).catch(() => {});
  }, 5_000);
  touch.unref?.();

  return {
    async resolve(rawKey) {
      const hash = hashApiKey(rawKey);
      const now = performance.now();
      if (now > sync.validUntil) cache.clear(); // the lease lapsed: nothing cached is trusted
      const hit = cache.get(hash);
      if (hit && now - hit.at < CACHE_TTL_MS) {
        used.add(hit.principal.keyId);
        return hit.principal;
      }
      const before = changes;
      const row = await findLiveKeyByHash(pg, hash);
      if (!row) {
        cache.delete(hash);
        return null;
      }
      const principal: Principal = {
        keyId: row.key_id,
        scopes: row.scopes,
        allowedIps: row.allowed_ips,
        account: {
          id: row.account_id,
          name: row.name,
          tier: row.tier,
          limitOverrides: row.limit_overrides ?? {},
          createdAt: new Date(row.created_at),
        },
      };
      if (changes === before && performance.now() <= sync.validUntil) cache.set(hash, { principal, at: now });
      used.add(row.key_id);
      return principal;
    },
    async invalidate({ accountId, keyId }) {
      await channel.publish([accountId ? `account:${accountId}` : `key:${keyId}`]);
    },
    close: () => clearInterval(touch),
  };
}
