// A journey link's imported days (Plausible's export, table imported_daily) as its reports show them:
// only the days before the link's first event of our own (from that day on our exact counts stand
// alone), whatever the report's period (imported history is older than our data by nature), with the
// dates they cover. Never added into our counts. Visitors are summed over days, as the source counts
// them per day (a visitor of two days is two). Every file shows: the visitors as totals and days, the
// pages and goals as tops, the other files as breakdowns by visitors (docs/moving.md says where each
// has, or has not, a report of ours beside it).
import type { Clickhouse } from "../storage/clickhouse/client";

export interface ImportedDay {
  date: string;
  visitors: number;
  visits: number;
  pageviews: number;
}

/** One value of a dimension and its visitors summed over the days shown. */
export interface ImportedValue {
  value: string;
  visitors: number;
}

/** The export's files a journey summary breaks down by (kind → the field of `imported`), by visitors. */
export const IMPORTED_BREAKDOWNS = {
  sources: "sources",
  entry_pages: "entry_pages",
  exit_pages: "exit_pages",
  locations: "countries",
  devices: "devices",
  browsers: "browsers",
  operating_systems: "operating_systems",
} as const;
type BreakdownField = (typeof IMPORTED_BREAKDOWNS)[keyof typeof IMPORTED_BREAKDOWNS];

export interface ImportedJourneyFigures extends Record<BreakdownField, ImportedValue[]> {
  source: string;
  /** The first and last imported day shown (YYYY-MM-DD, the source's own time zone). */
  from: string;
  to: string;
  /** The day of the link's first own event (UTC), before which the imported days are shown; null when it has none. */
  own_data_from: string | null;
  visitors: number;
  visits: number;
  pageviews: number;
  bounce_rate: number;
  avg_visit_duration_seconds: number;
  top_pages: { url: string; count: number }[];
  top_events: { name: string; count: number }[];
  daily: ImportedDay[];
}

export interface ImportedConversionFigures {
  source: string;
  from: string;
  to: string;
  own_data_from: string | null;
  /** Custom events (Plausible's goals) completed, and their visitors summed over days. */
  conversions: number;
  converters: number;
  by_goal: { name: string; conversions: number }[];
  daily: { date: string; conversions: number }[];
}

const NO_OWN_DATA = "2999-12-31";
const num = (v: unknown) => Number(v ?? 0);

/**
 * The number of a link's imported days ({account:UUID}, {link:UUID}), as SQL: a caller may read it in a
 * statement of its own and pass it to importedJourneyFigures.
 */
export const importedDaysSql = (ch: Clickhouse) =>
  `SELECT count() FROM ${ch.table("imported_daily")} WHERE account_id = {account:UUID} AND link_id = {link:UUID} AND kind = 'visitors'`;

/**
 * Null when the link has no imported days (most links: one read of a small table, or none when the
 * caller read `importedDays` already); else the first own day.
 */
async function cutoff(ch: Clickhouse, accountId: string, linkId: string, importedDays?: number) {
  const p = { account: accountId, link: linkId };
  const n = importedDays ?? num((await ch.query<{ n: string }>(`SELECT (${importedDaysSql(ch)}) AS n`, p))[0]?.n);
  if (!n) return null;
  // In the table's key order (account, link, timestamp), LIMIT 1 reads the link's first granule only.
  const [own] = await ch.query<{ day: string }>(
    `SELECT toString(toDate(timestamp, 'UTC')) AS day FROM ${ch.table("journey_events")}
     WHERE account_id = {account:UUID} AND link_id = {link:UUID} ORDER BY timestamp LIMIT 1`,
    p,
  );
  return { ...p, before: own?.day ?? NO_OWN_DATA, own: own?.day ?? null };
}

const WHERE = "account_id = {account:UUID} AND link_id = {link:UUID} AND day < {before:Date}";

/**
 * The journey summary's `imported`: null when the link has no imported days before its own data.
 * `importedDays`: the link's count of them, when the caller read it (importedDaysSql).
 */
export async function importedJourneyFigures(
  ch: Clickhouse,
  accountId: string,
  linkId: string,
  importedDays?: number,
): Promise<ImportedJourneyFigures | null> {
  const c = await cutoff(ch, accountId, linkId, importedDays);
  if (!c) return null;
  const t = ch.table("imported_daily");
  const [days, tops] = await Promise.all([
    ch.query<{ date: string; source: string; visitors: string; visits: string; pageviews: string; bounces: string; duration: string }>(
      `SELECT toString(day) AS date, any(source) AS source, sum(visitors) AS visitors, sum(visits) AS visits,
         sum(pageviews) AS pageviews, sum(bounces) AS bounces, sum(visit_duration) AS duration
       FROM ${t} FINAL WHERE ${WHERE} AND kind = 'visitors' GROUP BY day ORDER BY day`,
      c,
    ),
    // Pages by pageviews, goals by events, every other file by visitors: the ten first of each.
    ch.query<{ kind: string; value: string; n: string }>(
      `SELECT kind, dimension AS value, sum(multiIf(kind = 'pages', pageviews, kind = 'custom_events', events, visitors)) AS n
       FROM ${t} FINAL WHERE ${WHERE} AND kind IN {kinds:Array(String)}
       GROUP BY kind, value ORDER BY n DESC, value LIMIT 10 BY kind`,
      { ...c, kinds: ["pages", "custom_events", ...Object.keys(IMPORTED_BREAKDOWNS)] },
    ),
  ]);
  if (!days.length) return null;
  const sum = (k: "visitors" | "visits" | "pageviews" | "bounces" | "duration") => days.reduce((s, d) => s + num(d[k]), 0);
  const visits = sum("visits");
  const of = (kind: string) => tops.filter((x) => x.kind === kind).map((x) => ({ value: x.value, count: num(x.n) }));
  return {
    source: days[0].source,
    from: days[0].date,
    to: days[days.length - 1].date,
    own_data_from: c.own,
    visitors: sum("visitors"),
    visits,
    pageviews: sum("pageviews"),
    bounce_rate: visits ? Math.round((sum("bounces") / visits) * 10000) / 100 : 0,
    avg_visit_duration_seconds: visits ? Math.round((sum("duration") / visits) * 100) / 100 : 0,
    top_pages: of("pages").map((x) => ({ url: x.value, count: x.count })),
    top_events: of("custom_events").map((x) => ({ name: x.value, count: x.count })),
    ...(Object.fromEntries(
      Object.entries(IMPORTED_BREAKDOWNS).map(([kind, field]) => [field, of(kind).map((x) => ({ value: x.value, visitors: x.count }))]),
    ) as Record<BreakdownField, ImportedValue[]>),
    daily: days.map((d) => ({ date: d.date, visitors: num(d.visitors), visits: num(d.visits), pageviews: num(d.pageviews) })),
  };
}

/** The conversion summary's `imported` for one link: its imported custom events (goals) before its own data. */
export async function importedConversionFigures(
  ch: Clickhouse,
  accountId: string,
  linkId: string,
): Promise<ImportedConversionFigures | null> {
  const c = await cutoff(ch, accountId, linkId);
  if (!c) return null;
  const rows = await ch.query<{ name: string; date: string; source: string; events: string; visitors: string }>(
    `SELECT dimension AS name, toString(day) AS date, any(source) AS source, sum(events) AS events, sum(visitors) AS visitors
     FROM ${ch.table("imported_daily")} FINAL WHERE ${WHERE} AND kind = 'custom_events'
     GROUP BY name, day ORDER BY day, name`,
    c,
  );
  if (!rows.length) return null;
  const byGoal = new Map<string, number>();
  const byDay = new Map<string, number>();
  for (const r of rows) {
    byGoal.set(r.name, (byGoal.get(r.name) ?? 0) + num(r.events));
    byDay.set(r.date, (byDay.get(r.date) ?? 0) + num(r.events));
  }
  return {
    source: rows[0].source,
    from: rows[0].date,
    to: rows[rows.length - 1].date,
    own_data_from: c.own,
    conversions: rows.reduce((s, r) => s + num(r.events), 0),
    converters: rows.reduce((s, r) => s + num(r.visitors), 0),
    by_goal: [...byGoal]
      .map(([name, conversions]) => ({ name, conversions }))
      .sort((a, b) => b.conversions - a.conversions || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    daily: [...byDay].map(([date, conversions]) => ({ date, conversions })),
  };
}
