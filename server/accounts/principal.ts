// Who a request acts for: the account, and the API key or console session that authenticated it.
// Types only; http/auth.ts builds them, every feature reads them.
import type { Role } from "../roles";
import type { LimitOverrides, Tier } from "../tiers";

export interface AccountRecord {
  id: string;
  name: string;
  tier: Tier;
  limitOverrides: LimitOverrides;
  createdAt: Date;
}

/** The console session behind a request, when it was not made with an API key. */
export interface SessionInfo {
  id: string;
  userId: string;
  email: string;
  role: Role;
  csrfToken: string;
}

export interface Principal {
  account: AccountRecord;
  /** What the rate limit counts against: the key's id, or `user:<id>` for a session. */
  keyId: string;
  scopes: readonly string[];
  allowedIps: readonly string[];
  session?: SessionInfo;
}
