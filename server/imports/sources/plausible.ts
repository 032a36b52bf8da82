// Plausible's full export (Site settings → Imports & Exports → Export to CSV): a zip of
// imported_<kind>_<from>_<to>.csv files, dates as YYYY-MM-DD, one row per day and dimension value, the
// columns of Plausible's imported_* tables. Each kind's key columns (the first is the dimension; the
// others, optional in older exports, go to `detail`) and its figures; entrances and exits count visits.
export const PLAUSIBLE_KINDS = {
  visitors: { keys: [], figures: ["visitors", "pageviews", "bounces", "visits", "visit_duration"] },
  sources: {
    keys: ["source", "referrer", "utm_source", "utm_medium", "utm_campaign", "utm_content", "utm_term"],
    figures: ["visitors", "visits", "pageviews", "bounces", "visit_duration"],
  },
  pages: { keys: ["page", "hostname"], figures: ["visitors", "visits", "pageviews"] },
  entry_pages: { keys: ["entry_page"], figures: ["visitors", "entrances", "visit_duration", "bounces", "pageviews"] },
  exit_pages: { keys: ["exit_page"], figures: ["visitors", "exits", "visit_duration", "bounces", "pageviews"] },
  custom_events: { keys: ["name", "link_url", "path"], figures: ["visitors", "events"] },
  locations: { keys: ["country", "region", "city"], figures: ["visitors", "visits", "visit_duration", "bounces", "pageviews"] },
  devices: { keys: ["device"], figures: ["visitors", "visits", "visit_duration", "bounces", "pageviews"] },
  browsers: { keys: ["browser", "browser_version"], figures: ["visitors", "visits", "visit_duration", "bounces", "pageviews"] },
  operating_systems: {
    keys: ["operating_system", "operating_system_version"],
    figures: ["visitors", "visits", "visit_duration", "bounces", "pageviews"],
  },
} as const satisfies Record<string, { keys: readonly string[]; figures: readonly string[] }>;

export type PlausibleKind = keyof typeof PLAUSIBLE_KINDS;

/** The one file every export has and the reports read. */
export const PLAUSIBLE_REQUIRED: PlausibleKind = "visitors";

/** "imported_browsers_20240101_20241231.csv" (in any folder of the zip) → browsers; null for any other name. */
export function plausibleKindOf(entryName: string): PlausibleKind | null {
  const m = /(?:^|\/)imported_([a-z_]+?)(?:_\d{8}_\d{8})?\.csv$/.exec(entryName);
  return m && m[1] in PLAUSIBLE_KINDS ? (m[1] as PlausibleKind) : null;
}

export interface DailyFigures {
  kind: PlausibleKind;
  day: string;
  dimension: string;
  detail: string;
  visitors: number;
  visits: number;
  pageviews: number;
  bounces: number;
  visit_duration: number;
  events: number;
}

/** The columns a kind's file must have: the date, its dimension and its figures. */
export const requiredColumns = (kind: PlausibleKind) => {
  const spec = PLAUSIBLE_KINDS[kind];
  return ["date", ...spec.keys.slice(0, 1), ...spec.figures];
};

const DAY = /^(\d{4})-(\d\d)-(\d\d)$/;

/** One CSV row of a kind's file (cells by column name) as its figures; a string says what is wrong. */
export function readPlausibleRow(kind: PlausibleKind, cells: Readonly<Record<string, string>>): DailyFigures | string {
  const spec = PLAUSIBLE_KINDS[kind];
  const day = (cells.date ?? "").trim();
  const m = DAY.exec(day);
  if (!m || Number.isNaN(Date.UTC(+m[1], +m[2] - 1, +m[3])) || new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10) !== day)
    return "date: must be a date (YYYY-MM-DD)";
  const n: Record<string, number> = {};
  for (const f of spec.figures) {
    const v = (cells[f] ?? "").trim();
    // Plausible writes whole numbers; an empty cell (a day without sessions in a full join) is 0.
    if (v !== "" && !/^\d{1,15}(\.\d+)?$/.test(v)) return `${f}: must be a number of 0 or more`;
    n[f] = v === "" ? 0 : Math.round(Number(v));
  }
  const [first, ...rest] = spec.keys as readonly string[];
  return {
    kind,
    day,
    dimension: first ? (cells[first] ?? "").trim() : "",
    detail: rest.length ? JSON.stringify(rest.map((k) => (cells[k] ?? "").trim())) : "",
    visitors: n.visitors ?? 0,
    visits: n.visits ?? n.entrances ?? n.exits ?? 0,
    pageviews: n.pageviews ?? 0,
    bounces: n.bounces ?? 0,
    visit_duration: n.visit_duration ?? 0,
    events: n.events ?? 0,
  };
}
