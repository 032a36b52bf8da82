// Click analytics use cases: the six account reports (each with the usage object and the clamped
// range) and one link's stats. No Elysia here.
import type { Postgres } from "../storage/postgres/client";
import type { Clickhouse } from "../storage/clickhouse/client";
import type { AccountRecord } from "../accounts/principal";
import { notFound, validationError } from "../errors";
import type {
  DateRange,
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
import { compareReports, rowTotals, type Compare, type Comparison } from "../reports/compare";
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
  comparison?: Comparison<T>;
}

interface Report {
  scope: ClickScope;
  floor: string;
  today: string;
  /** The range asked for, before the floor: what `compare` shifts. */
  requested: DateRange;
  account: AccountRecord;
  /** The month's clicks per day, read by the report's own statement when `inStatement` (UsageProbe). */
  probe: UsageProbe;
  inStatement: boolean;
}

/**
 * The report's scope from the retention floor. When the report reads stored visitor cells (`kind`), its
 * statement also reads the month's clicks per day (the usage figures): no round trip of its own.
 */
async function prepareReport(deps: AnalyticsDeps, account: AccountRecord, q: AnalyticsQuery, kind?: VisitorReport): Promise<Report> {
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
  const probe: UsageProbe = { from: monthStart(today) };
  const inStatement = kind !== undefined && !isEmptyRange(scope.range) && cellSelector(scope, kind) !== undefined;
  return { scope: inStatement ? { ...scope, usage: probe } : scope, floor, today, requested, account, probe, inStatement };
}

/**
 * The report's rows and its usage figures (the month's clicks per day from its own statement, else one
 * read beside it). Only an account over its click budget whose cutoff is later than the retention floor
 * runs the report again, over the range clamped to the cutoff: every answer is what reading the usage
 * first would give.
 */
async function answer<T>(
  deps: AnalyticsDeps,
  r: Report,
  compare: Compare | undefined,
  run: (r: Report) => Promise<T>,
  figures?: (rows: T) => object,
): Promise<AnalyticsResult<T>> {
  const month = { accountId: r.account.id, from: r.probe.from };
  const [first, separate] = await Promise.all([
    rowsOf(r, compare, run, figures),
    r.inStatement ? undefined : getAccountDailyClicks(deps.ch, month),
  ]);
  const daily = separate ?? r.probe.daily ?? (await getAccountDailyClicks(deps.ch, month));
  const { usage, floor } = clickUsageOf(r.account, r.today, daily);
  if (floor === r.floor) return { ...first, usage };
  const { usage: _probe, ...scope } = r.scope;
  const again = { ...r, scope: { ...scope, range: clampRange(r.requested, floor) }, floor, inStatement: false };
  return { ...(await rowsOf(again, compare, run, figures)), usage };
}

/** The rows over the report's range, and with `compare` over the compared range too (reports/compare.ts:
 * the asked range shifted back by whole weeks, under the same retention and cutoff floor). */
async function rowsOf<T>(r: Report, compare: Compare | undefined, run: (r: Report) => Promise<T>, figures?: (rows: T) => object) {
  if (!compare) return { analytics: await run(r) };
  const window = { fromMs: Date.parse(r.requested.start), toMs: Date.parse(r.requested.end) + DAY_MS };
  const { current, comparison } = await compareReports(
    compare,
    window,
    window.toMs - window.fromMs,
    (w, isCurrent) => run(isCurrent ? r : { ...r, scope: { ...r.scope, range: clampRange(daysOfWindow(w), r.floor) } }),
    { figures },
  );
  return { analytics: current, comparison };
}

const daysOfWindow = (w: { fromMs: number; toMs: number }): DateRange => ({ start: isoDay(w.fromMs), end: isoDay(w.toMs - DAY_MS) });
/** The list reports' figures: their rows' sums. */
const clickTotals = rowTotals("clicks", "unique_visitors");
/** The summary's figures: those of its range (today, yesterday and the month's counts are the same in both). */
const summaryFigures = (s: SummaryRow) => ({
  total_clicks: s.total_clicks,
  unique_visitors: s.unique_visitors,
  total_links: s.total_links,
  active_links: s.active_links,
});

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
  const result = await answer(
    deps,
    await prepareReport(deps, account, q, "total"),
    q.compare,
    (r) => summaryOf(deps, r, q),
    summaryFigures,
  );
  // The month's clicks are the usage's, known once the report has run.
  result.analytics.clicks_this_month = result.usage.clicks_this_month;
  if (result.comparison) result.comparison.data.clicks_this_month = result.usage.clicks_this_month;
  return result;
}

async function summaryOf(
  deps: AnalyticsDeps,
  r: Report,
  q: GroupedAnalyticsQuery,
): Promise<SummaryRow & { groups?: Record<string, unknown>[] }> {
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
  const group = q.group_by;
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
  return answer(deps, await prepareReport(deps, account, q, "total"), q.compare, (r) => timeseriesOf(deps, r, q), clickTotals);
}

async function timeseriesOf(deps: AnalyticsDeps, r: Report, q: GroupedAnalyticsQuery) {
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
}

export async function getHourlyReport(
  deps: AnalyticsDeps,
  account: AccountRecord,
  q: AnalyticsQuery,
): Promise<AnalyticsResult<HourlyRow[]>> {
  const hourly = async (r: Report) => {
    const rows = await emptyWhenNoRange(r, [], () => getClicksByHour(deps.ch, r.scope));
    const byHour = new Map(rows.map((h) => [h.hour, h]));
    return Array.from({ length: 24 }, (_, hour) => byHour.get(hour) ?? { hour, clicks: 0, unique_visitors: 0 });
  };
  return answer(deps, await prepareReport(deps, account, q, "hour"), q.compare, hourly, clickTotals);
}

export async function getGeoReport(deps: AnalyticsDeps, account: AccountRecord, q: AnalyticsQuery): Promise<AnalyticsResult<GeoRow[]>> {
  const geo = (r: Report) => emptyWhenNoRange(r, [], () => getClicksByCountry(deps.ch, r.scope));
  return answer(deps, await prepareReport(deps, account, q, "country"), q.compare, geo, clickTotals);
}

export async function getDevicesReport(
  deps: AnalyticsDeps,
  account: AccountRecord,
  q: AnalyticsQuery,
): Promise<AnalyticsResult<DeviceRow[]>> {
  const devices = (r: Report) => emptyWhenNoRange(r, [], () => getClicksByDevice(deps.ch, r.scope));
  return answer(deps, await prepareReport(deps, account, q), q.compare, devices, rowTotals("clicks"));
}

export async function getReferrersReport(
  deps: AnalyticsDeps,
  account: AccountRecord,
  q: AnalyticsQuery,
): Promise<AnalyticsResult<ReferrerRow[]>> {
  const referrers = (r: Report) => emptyWhenNoRange(r, [], () => getClicksByReferrer(deps.ch, r.scope));
  return answer(deps, await prepareReport(deps, account, q, "referrer"), q.compare, referrers, clickTotals);
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
  const report = await prepareReport(deps, account, { days: q.days ?? 7, bot_filter: q.bot_filter });
  return answer(deps, report, undefined, async (r) => {
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
