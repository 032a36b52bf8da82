// Click analytics use cases: the six account reports (each with the usage object and the clamped
// range) and one link's stats. No Elysia here.
import type { Postgres } from "../storage/postgres/client";
import type { Clickhouse } from "../storage/clickhouse/client";
import type { AccountRecord } from "../accounts/principal";
import { notFound, validationError } from "../errors";
import type {
  ClickGroup,
  GroupedAnalyticsQuery,
  AnalyticsQuery,
  AnalyticsUsage,
  ClickScope,
  UsageProbe,
  DeviceRow,
  GeoRow,
  HourlyRow,
  LinkClicksRow,
  LinksClicksQuery,
  LinkStats,
  ReferrerRow,
  SummaryRow,
  TimeseriesRow,
} from "./model";
import { addDays, clampRange, daysOf, isEmptyRange, isoDay, monthStart, resolveRange } from "./range";
import { clickUsageOf, retentionFloor } from "./click-usage";
import { cellSelector } from "./visitor-days";
import type { VisitorReport } from "./queries/visitor-days";
import {
  countActiveLinks,
  getAccountDailyClicks,
  getClickTimeseries,
  getClickTotals,
  getClicksByHour,
  getSummaryClicks,
} from "./queries/totals";
import { getClicksByCountry, getClicksByDevice, getClicksByReferrer } from "./queries/breakdowns";
import { getLinkClickStats } from "./queries/link-stats";
import { getLinkDailyClicks } from "./queries/link-days";
import { checkQueryBounds } from "../http/query-bounds";
import { countReportLinks, findLiveLinkIds, type LinkFacts } from "../links/read";
import { findAccountDomainIdByName } from "../domains/read";
import { resolveReportLinks } from "../reports/scope";
import { DAY_MS } from "../reports/period";
import { percent, round2 } from "../reports/numbers";
import { getClickGroups, getLinkGroups, type ClickGroupRow, type LinkGroupRow } from "./queries/groups";
import { normalizeDomain } from "../visitors/hosts";

export interface AnalyticsDeps {
  pg: Postgres;
  ch: Clickhouse;
}
export interface AnalyticsResult<T> {
  analytics: T;
  usage: AnalyticsUsage;
}

interface Report {
  scope: ClickScope;
  floor: string;
  today: string;
}

/**
 * A report and its usage figures. The range starts at the retention floor and the report's own
 * statement reads the month's clicks per day beside its rows whenever it reads stored visitor cells
 * (else one read runs beside the report's, as before): no round trip of its own for the usage. Only an
 * account over its click budget whose cutoff is later than that floor runs the report again, over the
 * range clamped to the cutoff, so every answer is what reading the usage first would give.
 */
async function runReport<T>(
  deps: AnalyticsDeps,
  account: AccountRecord,
  q: AnalyticsQuery,
  kind: VisitorReport | undefined,
  run: (r: Report) => Promise<T>,
): Promise<AnalyticsResult<T>> {
  const today = isoDay(Date.now());
  const requested = resolveRange(q, today);
  const domain = reportDomain(q);
  const { linkIds } = await resolveReportLinks(deps.pg.db, account.id, { linkId: q.link_id, tag: q.tag, campaignId: q.campaign_id });
  const floor = retentionFloor(account, today);
  const scope: ClickScope = {
    accountId: account.id,
    range: clampRange(requested, floor),
    botFilter: q.bot_filter ?? "real",
    domain,
    source: q.source,
    linkIds,
  };
  const month = { accountId: account.id, from: monthStart(today) };
  const probe: UsageProbe = { from: month.from };
  const inStatement = kind !== undefined && !isEmptyRange(scope.range) && cellSelector(scope, kind) !== undefined;
  const [analytics, separate] = await Promise.all([
    run({ scope: inStatement ? { ...scope, usage: probe } : scope, floor, today }),
    inStatement ? undefined : getAccountDailyClicks(deps.ch, month),
  ]);
  const { usage, floor: visible } = clickUsageOf(account, today, separate ?? probe.daily ?? (await getAccountDailyClicks(deps.ch, month)));
  if (visible === floor) return { analytics, usage };
  return { analytics: await run({ scope: { ...scope, range: clampRange(requested, visible) }, floor: visible, today }), usage };
}

/** `domain`, or its former name `domain_name`; both may be given only when they name one domain. */
function reportDomain(q: AnalyticsQuery): string | undefined {
  const [domain, former] = [q.domain, q.domain_name].map((d) => (d === undefined ? undefined : normalizeDomain(d)));
  if (domain !== undefined && former !== undefined && domain !== former) {
    throw validationError("query.domain", "names another domain than domain_name; give one of them");
  }
  return domain ?? former;
}

const emptyWhenNoRange = async <T>(r: Report, empty: T, run: () => Promise<T>) => (isEmptyRange(r.scope.range) ? empty : run());

/** A group row as the reports show it: the group's value under its own name (variant, rule or source). */
const groupJson = (group: ClickGroup, { date, value, ...rest }: ClickGroupRow) => ({ [group]: value, ...rest });

/** The summary's link counts: the scope's domain is a name, which the account may not have (then no link is on it). */
async function countScopeLinks(deps: AnalyticsDeps, r: Report) {
  const { accountId, domain, range, linkIds } = r.scope;
  const domainId = domain === undefined ? undefined : await findAccountDomainIdByName(deps.pg.db, accountId, domain);
  return countReportLinks(deps.pg.db, { accountId, rangeEnd: range.end, monthStart: monthStart(r.today), domainId, linkIds });
}

export async function getSummaryReport(
  deps: AnalyticsDeps,
  account: AccountRecord,
  q: GroupedAnalyticsQuery,
): Promise<AnalyticsResult<SummaryRow & { groups?: Record<string, unknown>[] }>> {
  const result = await runReport(deps, account, q, "total", (r) => summaryOf(deps, r, q.group_by));
  result.analytics.clicks_this_month = result.usage.clicks_this_month;
  return result;
}

async function summaryOf(deps: AnalyticsDeps, r: Report, group: ClickGroup | undefined) {
  const { ch } = deps;
  const yesterday = addDays(r.today, -1);
  const clicks = async () => {
    // Today and yesterday follow the filters and the cutoff, not the requested range.
    const recentRange = clampRange({ start: yesterday, end: r.today }, r.floor);
    // One statement when the range holds today and yesterday (the default); else one read each.
    const covers = !isEmptyRange(r.scope.range) && r.scope.range.start <= recentRange.start && r.scope.range.end >= recentRange.end;
    const one = covers ? await getSummaryClicks(ch, r.scope) : undefined;
    if (one) return { totals: one.totals, active: one.activeLinks, clicksOn: one.clicksOn };
    const [totals, active, recent] = await Promise.all([
      emptyWhenNoRange(r, { clicks: 0, unique_visitors: 0, last_click_at: null }, () => getClickTotals(ch, r.scope)),
      emptyWhenNoRange(r, 0, () => countActiveLinks(ch, r.scope)),
      isEmptyRange(recentRange) ? [] : getClickTimeseries(ch, { ...r.scope, range: recentRange }, false),
    ]);
    return { totals, active, clicksOn: (day: string) => recent.find((d) => d.date === day)?.clicks ?? 0 };
  };
  const groups = async () =>
    group ? (await emptyWhenNoRange(r, [], () => getClickGroups(ch, r.scope, group, false))).map((g) => groupJson(group, g)) : undefined;
  const [l, { totals, active, clicksOn }, grouped] = await Promise.all([countScopeLinks(deps, r), clicks(), groups()]);
  return {
    total_clicks: totals.clicks,
    unique_visitors: totals.unique_visitors,
    total_links: l.total_links,
    last_click_at: totals.last_click_at,
    today_clicks: clicksOn(r.today),
    yesterday_clicks: clicksOn(yesterday),
    active_links: active,
    total_links_count: l.total_links_count,
    links_this_month: l.links_this_month,
    clicks_this_month: 0,
    ...(grouped ? { groups: grouped } : {}),
  };
}

export async function getTimeseriesReport(
  deps: AnalyticsDeps,
  account: AccountRecord,
  q: GroupedAnalyticsQuery,
): Promise<AnalyticsResult<(TimeseriesRow & { groups?: Record<string, unknown>[] })[]>> {
  return runReport(deps, account, q, "total", async (r) => {
    const group = q.group_by;
    const [rows, groupRows] = await Promise.all([
      emptyWhenNoRange(r, [], () => getClickTimeseries(deps.ch, r.scope)),
      group ? emptyWhenNoRange(r, [], () => getClickGroups(deps.ch, r.scope, group, true)) : [],
    ]);
    const byDate = new Map(rows.map((d) => [d.date, d]));
    const groupsOn = (date: string) => groupRows.filter((g) => g.date === date).map((g) => groupJson(group!, g));
    const analytics = isEmptyRange(r.scope.range)
      ? []
      : daysOf(r.scope.range).map((date) => {
          const row = byDate.get(date) ?? { date, clicks: 0, unique_visitors: 0 };
          return group ? { ...row, groups: groupsOn(date) } : row;
        });
    return analytics;
  });
}

export async function getHourlyReport(
  deps: AnalyticsDeps,
  account: AccountRecord,
  q: AnalyticsQuery,
): Promise<AnalyticsResult<HourlyRow[]>> {
  return runReport(deps, account, q, "hour", async (r) => {
    const rows = await emptyWhenNoRange(r, [], () => getClicksByHour(deps.ch, r.scope));
    const byHour = new Map(rows.map((h) => [h.hour, h]));
    return Array.from({ length: 24 }, (_, hour) => byHour.get(hour) ?? { hour, clicks: 0, unique_visitors: 0 });
  });
}

export async function getGeoReport(deps: AnalyticsDeps, account: AccountRecord, q: AnalyticsQuery): Promise<AnalyticsResult<GeoRow[]>> {
  return runReport(deps, account, q, "country", (r) => emptyWhenNoRange(r, [], () => getClicksByCountry(deps.ch, r.scope)));
}

export async function getDevicesReport(
  deps: AnalyticsDeps,
  account: AccountRecord,
  q: AnalyticsQuery,
): Promise<AnalyticsResult<DeviceRow[]>> {
  return runReport(deps, account, q, undefined, (r) => emptyWhenNoRange(r, [], () => getClicksByDevice(deps.ch, r.scope)));
}

export async function getReferrersReport(
  deps: AnalyticsDeps,
  account: AccountRecord,
  q: AnalyticsQuery,
): Promise<AnalyticsResult<ReferrerRow[]>> {
  return runReport(deps, account, q, "referrer", (r) => emptyWhenNoRange(r, [], () => getClicksByReferrer(deps.ch, r.scope)));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Clicks per day of each link asked for (the links list's column and sparkline), in the order asked. */
export async function getLinksClicks(
  deps: AnalyticsDeps,
  account: AccountRecord,
  q: LinksClicksQuery,
): Promise<AnalyticsResult<LinkClicksRow[]>> {
  checkQueryBounds(q, { days: [1, 90] });
  const ids = [...new Set(q.link_ids.toLowerCase().split(","))];
  if (ids.length > 100) throw validationError("query.link_ids", "names more than 100 links");
  if (!ids.every((id) => UUID.test(id))) throw validationError("query.link_ids", "must be link ids (UUIDs), comma-separated");
  const owned = new Set(await findLiveLinkIds(deps.pg.db, account.id, ids));
  if (ids.some((id) => !owned.has(id))) throw notFound("Link");
  return runReport(deps, account, { days: q.days ?? 7, bot_filter: q.bot_filter }, undefined, async (r) => {
    const scope = { ...r.scope, linkIds: ids };
    const rows = await emptyWhenNoRange(r, [], () => getLinkDailyClicks(deps.ch, scope));
    const days = isEmptyRange(scope.range) ? [] : daysOf(scope.range);
    const byKey = new Map(rows.map((row) => [`${row.link_id}/${row.date}`, row.clicks]));
    const analytics = ids.map((id) => {
      const daily = days.map((d) => byKey.get(`${id}/${d}`) ?? 0);
      return { link_id: id, clicks: daily.reduce((a, b) => a + b, 0), daily };
    });
    return analytics;
  });
}

/** Lifetime numbers of one link of the account (404 for unknown, deleted or another account's). */
export async function getLinkStats(
  deps: AnalyticsDeps,
  accountId: string,
  linkId: string,
  groupBy?: ClickGroup,
): Promise<LinkStats & { groups?: Record<string, unknown>[] }> {
  const { link } = await resolveReportLinks(deps.pg.db, accountId, { linkId });
  if (!link) throw notFound("Link");
  const id = link.id;
  const [clicks, groupRows] = await Promise.all([
    getLinkClickStats(deps.ch, { accountId, linkId: id, withImported: true }),
    groupBy ? getLinkGroups(deps.ch, { accountId, linkId: id, group: groupBy }) : undefined,
  ]);
  const converters = clicks.converters;
  const total = clicks.human_clicks + clicks.bot_clicks;
  const daysActive = Math.max(1, Math.floor((Date.now() - link.created_at.getTime()) / DAY_MS));
  return {
    short_code: link.short_code,
    original_url: link.original_url,
    total_clicks: total,
    unique_visitors: clicks.unique_visitors,
    bot_clicks: clicks.bot_clicks,
    human_clicks: clicks.human_clicks,
    last_accessed_at: link.last_accessed_at?.toISOString() ?? clicks.last_click_at,
    is_active: link.is_active,
    days_active: daysActive,
    average_clicks_per_day: round2(total / daysActive),
    conversion_rate: percent(converters, clicks.unique_visitors),
    imported_clicks: link.imported_clicks + clicks.imported,
    ...(groupBy && groupRows ? { groups: linkGroups(link, groupBy, groupRows) } : {}),
  };
}

/**
 * A link's groups: every value with clicks or conversions, and the link's current variants or rules
 * even before their first click (with their weight or URL; null for ones no longer on the link).
 */
function linkGroups(link: LinkFacts, group: ClickGroup, rows: LinkGroupRow[]) {
  const current =
    group === "variant"
      ? (link.variants ?? []).map((v) => ({ value: v.url as string | number, extra: { weight: v.weight } }))
      : group === "rule"
        ? (link.rules ?? []).map((r, i) => ({ value: (i + 1) as string | number, extra: { url: r.url } }))
        : [];
  const empty = { human_clicks: 0, bot_clicks: 0, unique_visitors: 0, conversions: 0, converters: 0, revenue_cents: 0 };
  const byValue = new Map(rows.map((r) => [String(r.value), r]));
  const values = [
    ...current.map((c) => c.value),
    ...rows.map((r) => r.value).filter((v) => !current.some((c) => String(c.value) === String(v))),
  ];
  const nullExtra = group === "variant" ? { weight: null } : group === "rule" ? { url: null } : {};
  return values.map((value) => {
    const r = byValue.get(String(value)) ?? { value, ...empty };
    const extra = current.find((c) => String(c.value) === String(value))?.extra ?? nullExtra;
    return {
      [group]: value,
      ...extra,
      total_clicks: r.human_clicks + r.bot_clicks,
      human_clicks: r.human_clicks,
      bot_clicks: r.bot_clicks,
      unique_visitors: r.unique_visitors,
      conversions: r.conversions,
      revenue: Math.round(r.revenue_cents) / 100,
      conversion_rate: percent(r.converters, r.unique_visitors),
    };
  });
}
