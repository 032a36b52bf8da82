// Accounts, API keys and team members: the admin API's logic (no Elysia here).
import { AppError, notFound, validationError } from "../errors";
import { TIER_LIMITS, tierRank, type LimitOverrides, type Tier } from "../tiers";
import { emitEvent } from "../webhooks/outbox";
import { isValidAllowEntry } from "../http/ip-allowlist";
import { isUniqueViolation } from "../storage/postgres/errors";
import type { Postgres } from "../storage/postgres/client";
import { generateApiKey, type CachedKeyResolver } from "./api-keys";
import * as repo from "./repository";
import { getAccountOrThrow } from "./read";
import { toAccountJson, toKeyJson, toMemberJson } from "./serialize";

/** Merges overrides; a null value clears that override. */
function mergeOverrides(current: LimitOverrides, patch: LimitOverrides): LimitOverrides {
  const next: Record<string, number> = { ...(current as Record<string, number>) };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete next[k];
    else if (v !== undefined) next[k] = v;
  }
  return next;
}

export const getAccount = async (pg: Postgres, id: string) => toAccountJson(await getAccountOrThrow(pg, id));

export async function createAccount(pg: Postgres, body: { name: string; tier: Tier; limit_overrides?: LimitOverrides }) {
  const account = await repo.insertAccount(pg.db, {
    name: body.name,
    tier: body.tier,
    limitOverrides: mergeOverrides({}, body.limit_overrides ?? {}),
  });
  return toAccountJson(account);
}

export async function updateAccount(
  pg: Postgres,
  keys: CachedKeyResolver,
  id: string,
  body: { tier?: Tier; limit_overrides?: LimitOverrides },
) {
  const updated = await pg.db.transaction(async (tx) => {
    const current = await repo.findAccount(tx, id);
    if (!current) throw notFound("Account");
    const next = await repo.updateAccountRow(tx, id, {
      tier: body.tier ?? (current.tier as Tier),
      limitOverrides: body.limit_overrides ? mergeOverrides(current.limitOverrides, body.limit_overrides) : current.limitOverrides,
    });
    if (body.tier && body.tier !== current.tier) {
      const up = tierRank(body.tier) > tierRank(current.tier as Tier);
      await emitEvent(tx, id, up ? "subscription.upgraded" : "subscription.downgraded", {
        account_id: id,
        previous_tier: current.tier,
        tier: body.tier,
      });
    }
    return next;
  });
  await keys.invalidate({ accountId: id });
  return toAccountJson(updated);
}

export async function createKey(pg: Postgres, accountId: string, body: { name: string; scopes: string[]; allowed_ips?: string[] }) {
  const allowedIps = body.allowed_ips ?? [];
  allowedIps.forEach((entry, i) => {
    if (!isValidAllowEntry(entry)) throw validationError(`body.allowed_ips.${i}`, `"${entry}" is not an IP address or CIDR range`);
  });
  return pg.db.transaction(async (tx) => {
    const account = await repo.findAccount(tx, accountId);
    if (!account) throw notFound("Account");
    const max = TIER_LIMITS[account.tier as Tier].apiKeys;
    if (max !== null && (await repo.countActiveKeys(tx, accountId)) >= max) {
      throw new AppError("QUOTA_EXCEEDED", `The ${account.tier} tier allows ${max} API key(s)`, { limit: max, tier: account.tier });
    }
    const { key, prefix, hash } = generateApiKey();
    const row = await repo.insertKey(tx, { accountId, name: body.name, prefix, keyHash: hash, scopes: body.scopes, allowedIps });
    const json = toKeyJson(row);
    await emitEvent(tx, accountId, "api_key.created", json);
    return { ...json, key };
  });
}

export async function listKeys(pg: Postgres, accountId: string) {
  await getAccountOrThrow(pg, accountId);
  return (await repo.listKeyRows(pg.db, accountId)).map(toKeyJson);
}

export async function revokeKey(pg: Postgres, keys: CachedKeyResolver, accountId: string, keyId: string) {
  const revoked = await pg.db.transaction(async (tx) => {
    const row = await repo.revokeKeyRow(tx, accountId, keyId);
    if (!row) {
      const existing = await repo.findKey(tx, accountId, keyId);
      if (!existing) throw notFound("API key");
      return existing; // already revoked: idempotent
    }
    await emitEvent(tx, accountId, "api_key.revoked", toKeyJson(row));
    return row;
  });
  await keys.invalidate({ keyId });
  return toKeyJson(revoked);
}

export async function addMember(pg: Postgres, accountId: string, body: { email: string; role: string }) {
  return pg.db.transaction(async (tx) => {
    if (!(await repo.findAccount(tx, accountId))) throw notFound("Account");
    try {
      const member = toMemberJson(await repo.insertMember(tx, { accountId, email: body.email.toLowerCase(), role: body.role }));
      await emitEvent(tx, accountId, "team.member_added", member);
      return member;
    } catch (err) {
      if (isUniqueViolation(err)) throw new AppError("CONFLICT", `${body.email} is already a member`, { field: "body.email" });
      throw err;
    }
  });
}

export async function removeMember(pg: Postgres, accountId: string, memberId: string) {
  return pg.db.transaction(async (tx) => {
    const removed = await repo.deleteMember(tx, accountId, memberId);
    if (!removed) throw notFound("Member");
    const member = toMemberJson(removed);
    await emitEvent(tx, accountId, "team.member_removed", member);
    return member;
  });
}
