// Accounts, API keys and team members as the API answers them (and as webhook events carry members).
import type { Tier } from "../tiers";
import type { AccountJson, ApiKeyJson, MemberJson } from "./model";
import type { AccountRow, ApiKeyRow, MemberRow } from "./repository";

export const toAccountJson = (a: AccountRow): AccountJson => ({
  id: a.id,
  name: a.name,
  tier: a.tier as Tier,
  limit_overrides: a.limitOverrides ?? {},
  created_at: a.createdAt.toISOString(),
});

export const toKeyJson = (k: ApiKeyRow): ApiKeyJson => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  scopes: k.scopes,
  allowed_ips: k.allowedIps,
  created_at: k.createdAt.toISOString(),
  last_used_at: k.lastUsedAt?.toISOString() ?? null,
  revoked_at: k.revokedAt?.toISOString() ?? null,
});

export const toMemberJson = (m: MemberRow): MemberJson => ({
  id: m.id,
  email: m.email,
  role: m.role as MemberJson["role"],
  created_at: m.createdAt.toISOString(),
});
