// The raw exports (docs/exports.md "Raw exports"): one account's clicks or journey events of a date
// range, as CSV or NDJSON, streamed. This resolves what the request may read (404 for a link,
// campaign or domain that is not the account's) and where the answer stops; stream.ts sends it.
import type { AccountRecord } from "../accounts/principal";
import { isAccountCampaign } from "../campaigns/read";
import { findAccountDomainIdByName } from "../domains/read";
import { findLinkCodes, findLinkFacts } from "../links/read";
import { notFound, validationError } from "../errors";
import type { Clickhouse } from "../storage/clickhouse/client";
import type { Postgres } from "../storage/postgres/client";
import { effectiveLimits } from "../tiers";
import { normalizeDomain } from "../visitors/hosts";
import { CLICK_COLUMNS, JOURNEY_COLUMNS, cursorText, parseCursor, type Cursor, type ExportFormat, type ExportQuery } from "./model";
import { chTime, findStop, type ExportScope } from "./queries";
import { exportBody, planExport } from "./stream";
import { DAY_MS } from "../reports/period";

export interface ExportDeps {
  pg: Postgres;
  ch: Clickhouse;
}

export interface ExportRequest {
  kind: ExportScope["kind"];
  query: ExportQuery;
  format: ExportFormat;
  gzip: boolean;
  nowMs?: number;
}

export interface ExportAnswer {
  body: ReadableStream<Uint8Array>;
  /** The UTC days read, after the tier's retention. */
  range: { start: string; end: string };
  /** When `limit` cut the answer short: the cursor that continues after its last row. */
  next?: string;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export async function startExport(deps: ExportDeps, account: AccountRecord, req: ExportRequest): Promise<ExportAnswer> {
  const range = exportRange(account, req.query, req.nowMs ?? Date.now());
  const scope = await resolveScope(deps, account.id, req.kind, req.query, range);
  let next: Cursor | undefined;
  if (req.query.limit !== undefined) {
    const stop = await findStop(deps.ch, scope, req.query.limit);
    if (stop?.more) {
      scope.until = stop.last;
      next = stop.last;
    }
  }
  const header =
    req.format === "csv" ? `${(req.kind === "clicks" ? CLICK_COLUMNS : JOURNEY_COLUMNS).map((c) => c.name).join(",")}\r\n` : null;
  const windows = await planExport(deps.ch, scope);
  return { body: exportBody(deps.ch, scope, windows, req.format, header, req.gzip), range, next: next && cursorText(next) };
}

/** The requested days (default: the 30 days to today), from no earlier than the tier keeps. */
function exportRange(account: AccountRecord, q: ExportQuery, nowMs: number) {
  const today = day(nowMs);
  const end = q.end_date ?? today;
  const start = q.start_date ?? day(Date.parse(end) - 29 * DAY_MS);
  if (Number.isNaN(Date.parse(start))) throw validationError("query.start_date", "is not a date");
  if (Number.isNaN(Date.parse(end))) throw validationError("query.end_date", "is not a date");
  if (start > end) throw validationError("query.start_date", "is after end_date");
  const floor = day(nowMs - (effectiveLimits(account.tier, account.limitOverrides).retentionDays - 1) * DAY_MS);
  return { start: start < floor ? floor : start, end };
}

async function resolveScope(
  deps: ExportDeps,
  accountId: string,
  kind: ExportScope["kind"],
  q: ExportQuery,
  range: { start: string; end: string },
): Promise<ExportScope> {
  const domain = q.domain === undefined ? undefined : normalizeDomain(q.domain);
  const [link, campaign, domainId] = await Promise.all([
    q.link_id === undefined || findLinkFacts(deps.pg.db, accountId, q.link_id).then((l) => l !== null),
    q.campaign_id === undefined || isAccountCampaign(deps.pg.db, accountId, q.campaign_id),
    domain === undefined ? undefined : findAccountDomainIdByName(deps.pg.db, accountId, domain),
  ]);
  if (!link) throw notFound("Link");
  if (!campaign) throw notFound("Campaign");
  if (domainId === null) throw notFound("Domain");
  const byLinks = q.link_id !== undefined || q.campaign_id !== undefined;
  const codes = await findLinkCodes(deps.pg.db, accountId, {
    linkId: q.link_id,
    campaignId: q.campaign_id,
    // Clicks carry the domain they came through; journey events only their link, so a domain means its links.
    domainId: kind === "journey" ? domainId : undefined,
  });
  return {
    kind,
    accountId,
    from: `${range.start} 00:00:00.000`,
    to: chTime(new Date(Date.parse(range.end) + DAY_MS).toISOString()),
    linkIds: byLinks || (kind === "journey" && domain !== undefined) ? codes.ids : undefined,
    domain: kind === "clicks" ? domain : undefined,
    codes: kind === "clicks" ? codes : undefined,
    after: q.cursor === undefined ? undefined : parseCursor(q.cursor),
  };
}
