// X-API-Key authentication, IP allowlists, scopes and the hourly rate limit, as one Elysia macro:
// `{ scope: "links:read" }` on a route, or `{ scope: { scope: "journey:write", rateLimit: false } }`.
import { Elysia, type DocumentDecoration } from "elysia";
import { AppError } from "../errors";
import type { Scope } from "../scopes";
import { TIER_LIMITS, type LimitOverrides, type Tier } from "../tiers";
import type { Kv } from "../storage/kv";
import { clientAddress } from "./request-context";
import { isAddressAllowed } from "./ip-allowlist";
import { enforceRateLimit } from "./rate-limit";

export interface AccountRecord {
  id: string;
  name: string;
  tier: Tier;
  limitOverrides: LimitOverrides;
  createdAt: Date;
}

export interface Principal {
  account: AccountRecord;
  keyId: string;
  scopes: readonly string[];
  allowedIps: readonly string[];
}

export interface KeyResolver {
  resolve(rawKey: string): Promise<Principal | null>;
}

export const API_KEY_FORMAT = /^svc_[A-Za-z0-9_-]{28}$/;

type ScopeOption = Scope | { scope: Scope; rateLimit: false };

export function authPlugin(deps: { keys: KeyResolver; kv: Kv; trustProxy: boolean }) {
  const principals = new WeakMap<Request, Principal>();
  return new Elysia({ name: "auth" }).macro({
    scope: (option: ScopeOption) => {
      const scope = typeof option === "string" ? option : option.scope;
      const rateLimited = typeof option === "string";
      return {
        // Read by the OpenAPI document (server/openapi/document.ts): security, 401/403/429 and rate-limit headers.
        detail: { "x-required-scope": scope, "x-rate-limited": rateLimited } as DocumentDecoration,
        // transform runs before validation, so an unauthenticated caller learns nothing about the schema.
        async transform({ request, server, set }) {
          const principal = await authenticate(deps.keys, request.headers.get("x-api-key"));
          const address = clientAddress(request, server, deps.trustProxy);
          if (!isAddressAllowed(address, principal.allowedIps)) {
            throw new AppError("IP_NOT_ALLOWED", `Requests from ${address} are not allowed for this API key`);
          }
          if (rateLimited) {
            const { headers } = await enforceRateLimit(deps.kv, principal.keyId, TIER_LIMITS[principal.account.tier].requestsPerHour);
            Object.assign(set.headers, headers);
          }
          if (!principal.scopes.includes(scope)) {
            throw new AppError("INSUFFICIENT_PERMISSIONS", `This API key lacks the ${scope} permission`, { required: scope });
          }
          principals.set(request, principal);
        },
        resolve({ request }) {
          return { principal: principals.get(request)!, account: principals.get(request)!.account };
        },
      };
    },
  });
}

async function authenticate(keys: KeyResolver, raw: string | null): Promise<Principal> {
  if (!raw) throw new AppError("UNAUTHORIZED", "Missing X-API-Key header");
  if (!API_KEY_FORMAT.test(raw)) throw new AppError("UNAUTHORIZED", "Malformed API key: expected svc_ followed by 28 characters");
  const principal = await keys.resolve(raw);
  if (!principal) throw new AppError("UNAUTHORIZED", "Unknown or revoked API key");
  return principal;
}
