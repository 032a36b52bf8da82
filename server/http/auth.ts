// Authentication of every public API route and every console route, as two Elysia macros:
// - `{ scope: "links:read" }` (or `{ scope: { scope: "journey:write", rateLimit: false } }`): an X-API-Key,
//   or a console session cookie whose role grants the scope (server/roles.ts);
// - `{ session: "keys:manage" }`: a console session only, so that no API key can mint keys or invite people.
// Sessions are protected against cross-site requests: the Origin must be ours and, on every method
// but GET/HEAD, the X-CSRF-Token header must carry the session's token.
import { Elysia, type DocumentDecoration } from "elysia";
import { AppError } from "../errors";
import type { Permission, Role } from "../roles";
import type { Scope } from "../scopes";
import { TIER_LIMITS, type LimitOverrides, type Tier } from "../tiers";
import type { Kv } from "../storage/kv";
import { clientAddress } from "./request-context";
import { isAddressAllowed } from "./ip-allowlist";
import { enforceRateLimit } from "./rate-limit";
import { checkSameOrigin, csrfTokenMatches } from "./same-origin";

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

export interface KeyResolver {
  resolve(rawKey: string): Promise<Principal | null>;
}

export interface SessionResolver {
  cookieName: string;
  /** The principal of a live session token (scopes from its role), or null (unknown, expired, removed). */
  resolve(token: string): Promise<Principal | null>;
}

export const API_KEY_FORMAT = /^svc_[A-Za-z0-9_-]{28}$/;

/** Console sessions share one hourly window per user, at least this many requests whatever the tier. */
export const SESSION_REQUESTS_PER_HOUR = 3_600;

type ScopeOption = Scope | { scope: Scope; rateLimit: false };

export interface AuthDeps {
  keys: KeyResolver;
  sessions?: SessionResolver;
  kv: Kv;
  trustProxy: boolean;
  /** Origins a console request may come from besides the request's own (BASE_URL's). */
  origins: readonly string[];
}

export function authPlugin(deps: AuthDeps) {
  const principals = new WeakMap<Request, Principal>();
  const resolve = ({ request }: { request: Request }) => ({
    principal: principals.get(request)!,
    account: principals.get(request)!.account,
  });
  return new Elysia({ name: "auth" }).macro({
    scope: (option: ScopeOption) => {
      const scope = typeof option === "string" ? option : option.scope;
      const rateLimited = typeof option === "string";
      return {
        // Read by the OpenAPI document (server/openapi/document.ts): security, 401/403/429 and rate-limit headers.
        detail: { "x-required-scope": scope, "x-rate-limited": rateLimited } as DocumentDecoration,
        // transform runs before validation, so an unauthenticated caller learns nothing about the schema.
        async transform({ request, server, set }) {
          const apiKey = request.headers.get("x-api-key");
          const principal =
            apiKey !== null || !deps.sessions ? await authenticateKey(deps.keys, apiKey) : await authenticateSession(deps, request);
          if (!principal.session) {
            const address = clientAddress(request, server, deps.trustProxy);
            if (!isAddressAllowed(address, principal.allowedIps)) {
              throw new AppError("IP_NOT_ALLOWED", `Requests from ${address} are not allowed for this API key`);
            }
          }
          if (rateLimited) Object.assign(set.headers, await countRequest(deps.kv, principal));
          requirePermission(principal, scope);
          principals.set(request, principal);
        },
        resolve,
      };
    },
    session: (permission: Permission) => ({
      detail: { hide: true },
      async transform({ request, set }) {
        const principal = await authenticateSession(deps, request);
        Object.assign(set.headers, await countRequest(deps.kv, principal));
        requirePermission(principal, permission);
        principals.set(request, principal);
      },
      resolve: (ctx: { request: Request }) => ({ ...resolve(ctx), session: principals.get(ctx.request)!.session! }),
    }),
  });
}

async function countRequest(kv: Kv, principal: Principal) {
  const budget = TIER_LIMITS[principal.account.tier].requestsPerHour;
  const limit = principal.session ? Math.max(budget, SESSION_REQUESTS_PER_HOUR) : budget;
  return (await enforceRateLimit(kv, principal.keyId, limit)).headers;
}

function requirePermission(principal: Principal, permission: Permission) {
  if (principal.scopes.includes(permission)) return;
  const message = principal.session
    ? `Your role (${principal.session.role}) does not allow ${permission}`
    : `This API key lacks the ${permission} permission`;
  throw new AppError("INSUFFICIENT_PERMISSIONS", message, { required: permission });
}

async function authenticateKey(keys: KeyResolver, raw: string | null): Promise<Principal> {
  if (!raw) throw new AppError("UNAUTHORIZED", "Missing X-API-Key header");
  if (!API_KEY_FORMAT.test(raw)) throw new AppError("UNAUTHORIZED", "Malformed API key: expected svc_ followed by 28 characters");
  const principal = await keys.resolve(raw);
  if (!principal) throw new AppError("UNAUTHORIZED", "Unknown or revoked API key");
  return principal;
}

/** The session of the request's cookie, refused when it comes from another origin or lacks the CSRF token. */
export async function authenticateSession(deps: Pick<AuthDeps, "sessions" | "origins">, request: Request): Promise<Principal> {
  const cookies = request.headers.get("cookie");
  const token = deps.sessions && cookies ? new Bun.CookieMap(cookies).get(deps.sessions.cookieName) : null;
  if (!token) throw new AppError("UNAUTHORIZED", "Missing X-API-Key header or console session");
  // Before the lookup: a cross-site request learns nothing, not even whether the session is alive.
  checkSameOrigin(request, deps.origins);
  const principal = await deps.sessions!.resolve(token);
  if (!principal?.session) throw new AppError("UNAUTHORIZED", "Your session has ended: sign in again");
  if (
    request.method !== "GET" &&
    request.method !== "HEAD" &&
    !csrfTokenMatches(request.headers.get("x-csrf-token"), principal.session.csrfToken)
  ) {
    throw new AppError("CROSS_SITE_REQUEST", "Missing or wrong X-CSRF-Token header: reload the console");
  }
  return principal;
}
