// The figures of one account's weekly or monthly report: clicks, visitors, conversions and revenue of the
// period with their change against the period before, and the top links, sources, countries and pages. Every
// figure comes from the report services other features offer (their read.ts), the same the API answers.
import type { AccountRecord } from "../accounts/principal";
import * as analytics from "../analytics/read";
import { getConversionTimeseries } from "../conversions/read";
import { getAccountTopPages, type TopPage } from "../journey/read";
import { findLink } from "../links/read";
import { addDays, DAY_MS, isoDay } from "../reports/period";
import type { Postgres } from "../storage/postgres/client";
import type { Clickhouse } from "../storage/clickhouse/client";
import type { Frequency } from "./repository";

export interface ReportDeps {
  pg: Postgres;
  ch: Clickhouse;
}

/** A period of whole UTC days, [start, end): `start` names it. */
export interface ReportPeriod {
  frequency: Frequency;
  start: string;
  end: string;
}

/** The last whole week (Monday to Sunday) or calendar month before `nowMs`. */
export function lastPeriod(frequency: Frequency, nowMs: number): ReportPeriod {
  const today = isoDay(nowMs);
  if (frequency === "weekly") {
    const monday = addDays(today, -((new Date(nowMs).getUTCDay() + 6) % 7));
    return { frequency, start: addDays(monday, -7), end: monday };
  }
  const end = `${today.slice(0, 7)}-01`;
  return { frequency, start: `${isoDay(Date.parse(end) - DAY_MS).slice(0, 7)}-01`, end };
}

/** The period before: the week before, or the calendar month before. */
export const previousPeriod = (p: ReportPeriod): ReportPeriod => lastPeriod(p.frequency, Date.parse(p.start));

export interface Change {
  current: number;
  previous: number;
  /** null when the previous period's figure is 0 */
  change_percent: number | null;
}
export interface Top {
  name: string;
  clicks: number;
}
export interface ReportFigures {
  period: ReportPeriod;
  previous: ReportPeriod;
  clicks: Change;
  visitors: Change;
  conversions: Change;
  revenue: Change;
  top_links: Top[];
  top_sources: Top[];
  top_countries: Top[];
  /** The account's most viewed pages (journey page views, across its links) on the period's days. */
  top_pages: TopPage[];
}

const TOP = 5;
const change = (current: number, previous: number): Change => ({
  current,
  previous,
  change_percent: previous === 0 ? null : Math.round(((current - previous) / previous) * 10_000) / 100,
});
const top = (rows: Top[]) => [...rows].sort((a, b) => b.clicks - a.clicks || a.name.localeCompare(b.name)).slice(0, TOP);
const range = (p: ReportPeriod) => ({ start_date: p.start, end_date: addDays(p.end, -1) });

async function clickTotals(deps: ReportDeps, account: AccountRecord, p: ReportPeriod) {
  const { analytics: a } = await analytics.getSummaryReport(deps, account, range(p));
  return { clicks: a.total_clicks, visitors: a.unique_visitors };
}

/** Conversions and revenue per UTC day over the last 90 days, summed per period. */
async function conversionTotals(deps: ReportDeps, accountId: string, periods: ReportPeriod[]) {
  const days = await getConversionTimeseries({ db: deps.pg.db, ch: deps.ch }, accountId, { period: "90d", interval: "day" });
  return periods.map((p) => {
    const inside = days.filter((d) => d.timestamp.slice(0, 10) >= p.start && d.timestamp.slice(0, 10) < p.end);
    return {
      conversions: inside.reduce((n, d) => n + d.conversions, 0),
      revenue: Math.round(inside.reduce((n, d) => n + d.revenue, 0) * 100) / 100,
    };
  });
}

/** People's clicks per link since the period's start (to the time of sending: the report goes out as the period ends). */
async function topLinks(deps: ReportDeps, accountId: string, p: ReportPeriod): Promise<Top[]> {
  const clicks = await analytics.getAccountLinkClicks(deps.ch, { accountId, since: p.start });
  const best = [...clicks].sort((a, b) => b[1] - a[1]).slice(0, TOP);
  const rows = await Promise.all(
    best.map(async ([id, n]) => {
      const link = await findLink(deps.pg.db, accountId, id);
      return link ? { name: link.title ? `${link.title} (/${link.shortCode})` : `/${link.shortCode}`, clicks: n } : null;
    }),
  );
  return top(rows.filter((r): r is Top => r !== null));
}

export async function reportFigures(deps: ReportDeps, account: AccountRecord, period: ReportPeriod): Promise<ReportFigures> {
  const previous = previousPeriod(period);
  const [now, before, [conv, convBefore], links, sources, countries, pages] = await Promise.all([
    clickTotals(deps, account, period),
    clickTotals(deps, account, previous),
    conversionTotals(deps, account.id, [period, previous]),
    topLinks(deps, account.id, period),
    analytics.getReferrersReport(deps, account, range(period)),
    analytics.getGeoReport(deps, account, range(period)),
    getAccountTopPages(deps.ch, { accountId: account.id, start: period.start, end: period.end, limit: TOP }),
  ]);
  return {
    period,
    previous,
    clicks: change(now.clicks, before.clicks),
    visitors: change(now.visitors, before.visitors),
    conversions: change(conv.conversions, convBefore.conversions),
    revenue: change(conv.revenue, convBefore.revenue),
    top_links: links,
    top_sources: top(sources.analytics.map((r) => ({ name: r.referrer, clicks: r.clicks }))),
    top_countries: top(countries.analytics.map((r) => ({ name: r.country_code, clicks: r.clicks }))),
    top_pages: pages,
  };
}
