// Shared dashboards, the viewer's side: the share a token opens (every page and data request asks
// again), the password check with its attempt limits, and the reports it shows. No Elysia here.
import { AppError, validationError } from "../errors";
import type { Postgres } from "../storage/postgres/client";
import type { Clickhouse } from "../storage/clickhouse/client";
import type { Kv } from "../storage/kv";
import type { AccountRecord } from "../accounts/principal";
import { getAccountOrThrow } from "../accounts/read";
import { findLink } from "../links/read";
import { findCampaign } from "../campaigns/read";
import * as analytics from "../analytics/read";
import * as conversions from "../conversions/read";
import { getFunnel } from "../journey/read";
import * as insights from "../insights/read";
import * as realtime from "../realtime/read";
import type { Compare } from "../reports/compare";
import type { Period } from "../journey/model";
import type { BotFilter } from "../analytics/model";
import type { Interval } from "../conversions/model";
import type { ClickReport, ShareReport } from "./model";
import * as repo from "./repository";
import { hashShareToken, SHARE_TOKEN_FORMAT } from "./tokens";

export interface OpenShare {
  row: repo.ShareRow;
  /** SHA-256 of the token the request named (the current one, or the previous one during its grace). */
  tokenHash: string;
}

/** The share a token opens now: known, enabled, not expired; null otherwise, whatever the reason. */
export async function openShare(pg: Postgres, token: string): Promise<OpenShare | null> {
  if (!SHARE_TOKEN_FORMAT.test(token)) return null;
  const tokenHash = hashShareToken(token);
  const row = await repo.findShareByTokenHash(pg.db, tokenHash);
  if (!row || !row.enabled || (row.expiresAt && row.expiresAt.getTime() <= Date.now())) return null;
  return { row, tokenHash };
}

export interface ShareSubject {
  account: AccountRecord;
  /** What the page names: the link's title or short code, the campaign's name; null for the account. */
  name: string | null;
}

/** The account and the shared link or campaign; null when the link or campaign is gone. */
export async function shareSubject(pg: Postgres, row: repo.ShareRow): Promise<ShareSubject | null> {
  const account = (await getAccountOrThrow(pg, row.accountId)) as AccountRecord;
  if (row.scope === "link") {
    const link = row.linkId ? await findLink(pg.db, row.accountId, row.linkId) : undefined;
    return link ? { account, name: link.title || link.shortCode } : null;
  }
  if (row.scope === "campaign") {
    const campaign = row.campaignId ? await findCampaign(pg.db, row.accountId, row.campaignId) : undefined;
    return campaign ? { account, name: campaign.name } : null;
  }
  return { account, name: null };
}

const PASSWORD_SLOT_MS = 60_000;
/** Wrong passwords: 10 per address and share, 100 per share from all addresses, in 15 minutes. */
const PASSWORD_RULES = [
  { limit: 10, key: (shareId: string, address: string) => `share-pw:${shareId}:${address}` },
  { limit: 100, key: (shareId: string) => `share-pw:${shareId}` },
];
const PASSWORD_WINDOW_MINUTES = 15;

/** Counts one attempt; throws RATE_LIMIT_EXCEEDED (with Retry-After) once a window is spent, before any check. */
export async function countPasswordAttempt(kv: Kv, shareId: string, address: string, nowMs = Date.now()) {
  for (const rule of PASSWORD_RULES) {
    const slots = PASSWORD_WINDOW_MINUTES + 1;
    const hit = await kv.hitWindow(rule.key(shareId, address), rule.limit, nowMs, PASSWORD_SLOT_MS, slots);
    if (hit.allowed) continue;
    const wait = Math.max(1, Math.ceil((hit.oldestMs + PASSWORD_SLOT_MS * slots - nowMs) / 1000));
    throw new AppError("RATE_LIMIT_EXCEEDED", `Too many attempts. Try again in ${wait} seconds.`, undefined, {
      "retry-after": String(wait),
    });
  }
}

export const passwordMatches = async (row: repo.ShareRow, password: string) =>
  !!row.passwordHash && !!password && (await Bun.password.verify(password, row.passwordHash));

export interface ReportDeps {
  pg: Postgres;
  ch: Clickhouse;
}

/** The link or campaign filter of the share's scope, as the reports take it. */
const clickFilter = (row: repo.ShareRow) =>
  row.scope === "link" ? { link_id: row.linkId! } : row.scope === "campaign" ? { campaign_id: row.campaignId! } : {};

const CLICK_READS = {
  summary: analytics.getSummaryReport,
  timeseries: analytics.getTimeseriesReport,
  geo: analytics.getGeoReport,
  devices: analytics.getDevicesReport,
  referrers: analytics.getReferrersReport,
  hourly: analytics.getHourlyReport,
} as const;

/**
 * A click report of the share's scope. What belongs to the account rather than the report (its tier,
 * its month's clicks and limit) is left out: the viewer sees whether the range was clamped, and when from.
 */
export async function clickReport(deps: ReportDeps, share: repo.ShareRow, account: AccountRecord, report: ClickReport, q: ClickQuery) {
  const result = (await CLICK_READS[report](deps, account, { days: q.days, bot_filter: q.bot_filter, ...clickFilter(share) })) as {
    analytics: unknown;
    usage: { limit_exceeded: boolean; cutoff_date?: string };
  };
  const rows = report === "summary" ? withoutAccountFigures(result.analytics as Record<string, unknown>) : result.analytics;
  const { limit_exceeded, cutoff_date } = result.usage;
  return { analytics: rows, usage: cutoff_date === undefined ? { limit_exceeded } : { limit_exceeded, cutoff_date } };
}

const withoutAccountFigures = ({ clicks_this_month: _, ...rest }: Record<string, unknown>) => rest;

export interface ClickQuery {
  days?: number;
  bot_filter?: BotFilter;
}

export const linkStats = (deps: ReportDeps, share: repo.ShareRow) => analytics.getLinkStats(deps, share.accountId, share.linkId!);

/** The link's funnel over the share's own steps. */
export const funnel = (deps: ReportDeps, share: repo.ShareRow, q: { period?: Period }) =>
  getFunnel({ db: deps.pg.db, ch: deps.ch }, share.accountId, share.linkId!, {
    period: q.period,
    steps: (share.funnelSteps ?? []).join(","),
  });

export type ConversionPart = "summary" | "timeseries" | "time-to-convert";

/**
 * The comparison a data request may ask for: the share's own (the page gives it to the widgets), or
 * none; any other is the owner's choice to make, not the viewer's.
 */
export function shareCompare(share: repo.ShareRow, asked: Compare | undefined): Compare | undefined {
  if (asked !== undefined && asked !== share.compare)
    throw validationError(
      "query.compare",
      share.compare ? `is the share's own (${share.compare}); leave it out or send it unchanged` : "is not offered by this share",
    );
  return asked;
}

const conversionScope = (share: repo.ShareRow, period?: Period) => ({
  period,
  ...(share.scope === "link" ? { link_id: share.linkId! } : {}),
});
const conversionDeps = (deps: ReportDeps) => ({ db: deps.pg.db, ch: deps.ch });

export const conversionSummary = (deps: ReportDeps, share: repo.ShareRow, q: { period?: Period }) =>
  conversions.getConversionSummary(conversionDeps(deps), share.accountId, conversionScope(share, q.period));

export function conversionReport(
  deps: ReportDeps,
  share: repo.ShareRow,
  part: ConversionPart,
  q: { period?: Period; interval?: Interval; compare?: Compare },
) {
  const scope = conversionScope(share, q.period);
  const compare = shareCompare(share, q.compare);
  if (part === "summary") return conversions.getConversionSummary(conversionDeps(deps), share.accountId, { ...scope, compare });
  if (part === "timeseries")
    return conversions.getConversionTimeseries(conversionDeps(deps), share.accountId, { ...scope, interval: q.interval, compare });
  return conversions.getTimeToConvert(conversionDeps(deps), share.accountId, scope);
}

export const shows = (row: repo.ShareRow, report: ShareReport) => row.reports.includes(report);

/** The link's paths; the viewer picks the start or end event and the steps, of the shared link only. */
export const paths = (deps: ReportDeps, share: repo.ShareRow, q: insights.PathsQueryArgs) =>
  insights.getPaths({ db: deps.pg.db, ch: deps.ch }, share.accountId, share.linkId!, { ...q, compare: shareCompare(share, q.compare) });

export const retention = (deps: ReportDeps, share: repo.ShareRow, q: { weeks?: number; compare?: Compare }) =>
  insights.getRetention({ db: deps.pg.db, ch: deps.ch }, share.accountId, share.linkId!, {
    ...q,
    compare: shareCompare(share, q.compare),
  });

/** The last 30 minutes' clicks of the share's account, campaign or link. */
export const realtimeClicks = (deps: realtime.RealtimeDeps, share: repo.ShareRow) =>
  realtime.getClicksRealtime(deps, share.accountId, clickFilter(share));

/** Conversions credited to the links (or campaigns) of the share's account or campaign. */
export const attribution = (
  deps: ReportDeps,
  share: repo.ShareRow,
  q: Omit<conversions.AttributionQueryInput, "link_id" | "domain_id" | "campaign_id">,
) =>
  conversions.getAttribution(conversionDeps(deps), share.accountId, {
    ...q,
    ...(share.scope === "campaign" ? { campaign_id: share.campaignId! } : {}),
  });
