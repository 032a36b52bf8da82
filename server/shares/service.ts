// Shared dashboards, the owner's side: create, list, update, rotate and delete shares (docs/sharing.md).
// A share never shows more than its creator may read: its reports need the creator's own read scopes.
// No Elysia here.
import { AppError, notFound, validationError } from "../errors";
import type { Principal } from "../accounts/principal";
import type { Postgres } from "../storage/postgres/client";
import { findLink } from "../links/read";
import { isAccountCampaign } from "../campaigns/read";
import type { Compare } from "../reports/compare";
import {
  DEFAULT_GRACE_MINUTES,
  REPORT_SCOPES,
  type CreateShareBody,
  type ShareJson,
  type ShareReport,
  type ShareScope,
  type ShareWithTokenJson,
  type UpdateShareBody,
} from "./model";
import * as repo from "./repository";
import { hashShareToken, newShareToken, tokenPrefix } from "./tokens";

export interface SharesDeps {
  pg: Postgres;
  /** BASE_URL: the dashboards' addresses start with it. */
  baseUrl: string;
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

export const toShareJson = (s: repo.ShareRow): ShareJson => ({
  id: s.id,
  title: s.title,
  scope: s.scope as ShareScope,
  link_id: s.linkId,
  campaign_id: s.campaignId,
  reports: s.reports as ShareReport[],
  funnel_steps: s.funnelSteps,
  compare: (s.compare as Compare | null) ?? null,
  enabled: s.enabled,
  expires_at: iso(s.expiresAt),
  has_password: s.passwordHash !== null,
  allowed_origins: s.allowedOrigins,
  token_prefix: s.tokenPrefix,
  previous_token_valid_until: s.previousValidUntil && s.previousValidUntil.getTime() > Date.now() ? iso(s.previousValidUntil) : null,
  created_at: s.createdAt.toISOString(),
  updated_at: s.updatedAt.toISOString(),
});

export const shareUrl = (baseUrl: string, token: string) => `${baseUrl.replace(/\/+$/, "")}/share/${token}`;

/** The read scope each report needs of the share's creator. */
const REPORT_SCOPE: Record<ShareReport, string> = {
  summary: "analytics:read",
  timeseries: "analytics:read",
  geo: "analytics:read",
  devices: "analytics:read",
  referrers: "analytics:read",
  hourly: "analytics:read",
  link_stats: "analytics:read",
  funnel: "journey:read",
  conversions: "conversions:read",
  paths: "journey:read",
  retention: "journey:read",
  realtime: "analytics:read",
  attribution: "conversions:read",
};

const SCOPE_NAMES: Record<ShareScope, string> = { account: "an account", campaign: "a campaign", link: "a link" };

function checkReports(principal: Principal, scope: ShareScope, reports: readonly ShareReport[], funnelSteps: readonly string[] | null) {
  for (const r of reports) {
    const allowed = REPORT_SCOPES[r];
    if (allowed && !allowed.includes(scope))
      throw validationError(
        "body.reports",
        `${r} is only for ${allowed.map((a) => SCOPE_NAMES[a]).join(" or ")} share, not ${SCOPE_NAMES[scope]} one`,
      );
  }
  if (reports.includes("funnel") && !funnelSteps) throw validationError("body.funnel_steps", "is required with the funnel report");
  for (const r of reports) {
    const needed = REPORT_SCOPE[r];
    if (!principal.scopes.includes(needed))
      throw new AppError("INSUFFICIENT_PERMISSIONS", `Sharing the ${r} report needs the ${needed} permission`, { required: needed });
  }
}

const ORIGIN = /^https?:\/\/(\*\.)?([a-z0-9-]+\.)*[a-z0-9-]+(:\d{1,5})?$|^https?:\/\/\[[0-9a-f:.]+\](:\d{1,5})?$/;

/** Each origin as a browser names it (scheme, host, port); anything else is a 400 naming the entry. */
export function normalizeOrigins(origins: readonly string[]): string[] {
  const out = origins.map((o, i) => {
    let url: URL | null = null;
    try {
      url = new URL(o);
    } catch {}
    const field = `body.allowed_origins[${i}]`;
    if (!url || (url.protocol !== "https:" && url.protocol !== "http:"))
      throw validationError(field, "must be an http or https origin, such as https://client.example");
    if (url.username || url.password || url.pathname !== "/" || url.search || url.hash || /[/?#]./.test(o.replace(/^https?:\/\//i, "")))
      throw validationError(field, "must be an origin only: scheme, host and port, without a path");
    // The origin goes into a header: only host characters (and CSP's `*.` for any subdomain), no `;`.
    if (!ORIGIN.test(url.origin)) throw validationError(field, "has a character a host name cannot have");
    return url.origin;
  });
  return [...new Set(out)];
}

function futureDate(value: string, field: string): Date {
  const d = new Date(value);
  if (d.getTime() <= Date.now()) throw validationError(field, "must be in the future");
  return d;
}

async function checkTarget(pg: Postgres, accountId: string, body: CreateShareBody) {
  const { scope, link_id: linkId, campaign_id: campaignId } = body;
  if (scope !== "link" && linkId !== undefined) throw validationError("body.link_id", `is only for scope link`);
  if (scope !== "campaign" && campaignId !== undefined) throw validationError("body.campaign_id", `is only for scope campaign`);
  if (scope === "link") {
    if (linkId === undefined) throw validationError("body.link_id", "is required with scope link");
    if (!(await findLink(pg.db, accountId, linkId.toLowerCase()))) throw notFound("Link");
  }
  if (scope === "campaign") {
    if (campaignId === undefined) throw validationError("body.campaign_id", "is required with scope campaign");
    if (!(await isAccountCampaign(pg.db, accountId, campaignId.toLowerCase()))) throw notFound("Campaign");
  }
}

export async function listShares(pg: Postgres, accountId: string) {
  return (await repo.listAccountShares(pg.db, accountId)).map(toShareJson);
}

export async function getShare(pg: Postgres, accountId: string, id: string) {
  const row = await repo.findShare(pg.db, accountId, id);
  if (!row) throw notFound("Share");
  return toShareJson(row);
}

export async function createShare(deps: SharesDeps, principal: Principal, body: CreateShareBody): Promise<ShareWithTokenJson> {
  const accountId = principal.account.id;
  checkReports(principal, body.scope, body.reports, body.funnel_steps ?? null);
  const allowedOrigins = normalizeOrigins(body.allowed_origins ?? []);
  const expiresAt = body.expires_at === undefined ? null : futureDate(body.expires_at, "body.expires_at");
  await checkTarget(deps.pg, accountId, body);
  const token = newShareToken();
  const row = await repo.insertShare(deps.pg.db, {
    accountId,
    title: body.title,
    scope: body.scope,
    linkId: body.link_id?.toLowerCase() ?? null,
    campaignId: body.campaign_id?.toLowerCase() ?? null,
    reports: [...body.reports],
    funnelSteps: body.funnel_steps ? [...body.funnel_steps] : null,
    compare: body.compare ?? null,
    enabled: body.enabled ?? true,
    expiresAt,
    tokenHash: hashShareToken(token),
    tokenPrefix: tokenPrefix(token),
    passwordHash: body.password === undefined ? null : await Bun.password.hash(body.password),
    allowedOrigins,
  });
  return { share: toShareJson(row), token, url: shareUrl(deps.baseUrl, token) };
}

export async function updateShare(pg: Postgres, principal: Principal, id: string, body: UpdateShareBody) {
  const accountId = principal.account.id;
  const current = await repo.findShare(pg.db, accountId, id);
  if (!current) throw notFound("Share");
  const patch: Partial<repo.NewShare> = {};
  if (body.title !== undefined) patch.title = body.title;
  if (body.reports !== undefined || body.funnel_steps !== undefined) {
    const reports = body.reports ?? (current.reports as ShareReport[]);
    const steps = body.funnel_steps ?? current.funnelSteps;
    checkReports(principal, current.scope as ShareScope, reports, steps);
    patch.reports = [...reports];
    patch.funnelSteps = steps ? [...steps] : null;
  }
  if (body.enabled !== undefined) patch.enabled = body.enabled;
  if (body.compare !== undefined) patch.compare = body.compare;
  if (body.expires_at !== undefined) patch.expiresAt = body.expires_at === null ? null : futureDate(body.expires_at, "body.expires_at");
  if (body.allowed_origins !== undefined) patch.allowedOrigins = normalizeOrigins(body.allowed_origins);
  if (body.password !== undefined) patch.passwordHash = body.password === null ? null : await Bun.password.hash(body.password);
  if (!Object.keys(patch).length) return toShareJson(current);
  const row = await repo.updateShareRow(pg.db, accountId, id, patch);
  if (!row) throw notFound("Share");
  return toShareJson(row);
}

/** A new token; the previous one keeps working for `graceMinutes` (0: it stops now). */
export async function rotateShare(deps: SharesDeps, accountId: string, id: string, graceMinutes = DEFAULT_GRACE_MINUTES) {
  const token = newShareToken();
  const row = await repo.rotateShareToken(
    deps.pg.db,
    accountId,
    id,
    { tokenHash: hashShareToken(token), tokenPrefix: tokenPrefix(token) },
    new Date(Date.now() + graceMinutes * 60_000),
  );
  if (!row) throw notFound("Share");
  return { share: toShareJson(row), token, url: shareUrl(deps.baseUrl, token) };
}

export async function deleteShare(pg: Postgres, accountId: string, id: string) {
  const row = await repo.deleteShareRow(pg.db, accountId, id);
  if (!row) throw notFound("Share");
  return { message: `Share ${row.title} deleted; its address shows nothing any more` };
}
