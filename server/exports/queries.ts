// The raw exports' ClickHouse reads (docs/exports.md "Raw exports"). ClickHouse formats the rows itself
// (CSV or JSONEachRow): no row becomes a JavaScript object. A read is one chunk of rows in (timestamp,
// id) order after a cursor, so a download of any size holds one chunk at a time (stream.ts).
import type { Clickhouse } from "../storage/clickhouse/client";
import type { ClickhouseTable } from "../storage/clickhouse/tables";
import { CLICK_COLUMNS, JOURNEY_COLUMNS, type Cursor, type ExportFormat } from "./model";

/** What an export reads: one account's rows of one table in a time range, maybe of some links only. */
export interface ExportScope {
  kind: "clicks" | "journey";
  accountId: string;
  /** Inclusive start and exclusive end, as ClickHouse DateTime64 text (UTC). */
  from: string;
  to: string;
  linkIds?: string[];
  /** Clicks only: the custom domain's name (the clicks' own `domain` column). */
  domain?: string;
  /** The short code of each link id the rows may name (clicks only). */
  codes?: { ids: string[]; codes: string[] };
  /** Rows after this one … */
  after?: Cursor;
  /** … up to and including this one (the last row a `limit` lets through). */
  until?: Cursor;
}

const TABLE: Record<ExportScope["kind"], { table: ClickhouseTable; id: string }> = {
  clicks: { table: "clicks", id: "click_id" },
  journey: { table: "journey_events", id: "event_id" },
};

/** A cell of user text in CSV: a leading =, +, -, @, tab or CR gets an apostrophe (csv-cells.ts does the same in JS). */
const text = (csv: boolean, e: string) => (csv ? `if(match(${e}, '^[=+@\\t\\r-]'), concat('''', ${e}), ${e})` : e);
const iso = (e: string) => `concat(replaceOne(toString(${e}), ' ', 'T'), 'Z')`;

/** The outer SELECT list: each export column from the inner query's columns (same names, prefixed `r_`). */
function outerColumns(kind: ExportScope["kind"], csv: boolean): string {
  const t = (name: string) => `${text(csv, `r_${name}`)} AS ${name}`;
  if (kind === "clicks") {
    return [
      "toString(r_click_id) AS click_id",
      `${iso("r_timestamp")} AS timestamp`,
      "toString(r_link_id) AS link_id",
      // Not neutralised: a code is [A-Za-z0-9_-] (no formula can be written with it), and the importer
      // matches it to the link exactly, so "-sale" must stay "-sale".
      "transform(r_link_id, {code_ids:Array(UUID)}, {codes:Array(String)}, '') AS short_code",
      ...["domain", "country_code", "region", "city", "device_type", "browser", "browser_version", "os", "os_version"].map(t),
      ...["referrer", "referrer_url", "language"].map(t),
      "toBool(r_is_bot) AS is_bot",
      "toString(r_bot_kind) AS bot_kind",
    ].join(",\n  ");
  }
  return [
    "toString(r_event_id) AS event_id",
    `${iso("r_timestamp")} AS timestamp`,
    "toString(r_link_id) AS link_id",
    ...["visitor_id", "session_id", "event_type", "event_name", "page_url", "page_title"].map(t),
    "r_scroll_percent AS scroll_percent",
    "r_time_on_page AS time_on_page",
    t("conversion_name"),
    "r_revenue_cents AS revenue_cents",
    ...["currency", "country_code", "region", "city", "device_type", "browser", "browser_version", "os", "os_version"].map(t),
    "r_properties AS properties",
    `${iso("r_received_at")} AS received_at`,
  ].join(",\n  ");
}

// The columns read from the table: the export's own (model.ts), but the short code, which comes from
// Postgres (the links' codes the export holds, looked up by link_id).
const INNER: Record<ExportScope["kind"], string[]> = {
  clicks: CLICK_COLUMNS.map((c) => c.name).filter((n) => n !== "short_code"),
  journey: JOURNEY_COLUMNS.map((c) => c.name),
};

const DT = "DateTime64(3, 'UTC')";

/** WHERE of a scope (every value a bound parameter) and its parameters. */
function scopeWhere(ch: Clickhouse, s: ExportScope) {
  const id = TABLE[s.kind].id;
  const where = ["account_id = {account:UUID}", `timestamp >= {from:${DT}}`, `timestamp < {to:${DT}}`];
  const params: Record<string, unknown> = { account: s.accountId, from: s.from, to: s.to };
  if (s.linkIds) {
    where.push("link_id IN {links:Array(UUID)}");
    params.links = s.linkIds;
  }
  if (s.domain !== undefined) {
    where.push("domain = {domain:String}");
    params.domain = s.domain;
  }
  if (s.after) {
    // The plain bound lets ClickHouse skip what is before the cursor; the tuple breaks ties by id.
    where.push(`timestamp >= {after_ts:${DT}}`, `(timestamp, ${id}) > ({after_ts:${DT}}, {after_id:UUID})`);
    Object.assign(params, { after_ts: chTime(s.after.timestamp), after_id: s.after.id });
  }
  if (s.until) {
    where.push(`timestamp <= {until_ts:${DT}}`, `(timestamp, ${id}) <= ({until_ts:${DT}}, {until_id:UUID})`);
    Object.assign(params, { until_ts: chTime(s.until.timestamp), until_id: s.until.id });
  }
  return { from: ch.table(TABLE[s.kind].table), where: where.join(" AND "), params, id };
}

/** ISO 8601 (…T…Z) → ClickHouse's DateTime64 text. */
export const chTime = (iso: string) => iso.replace("T", " ").replace("Z", "");

const FORMAT_SQL: Record<ExportFormat, string> = {
  // RFC 4180's CRLF; absent values (journey's nullable numbers) as empty cells.
  csv: "FORMAT CSV SETTINGS output_format_csv_crlf_end_of_line = 1, format_csv_null_representation = ''",
  ndjson: "FORMAT JSONEachRow SETTINGS output_format_json_quote_64bit_integers = 0, output_format_json_escape_forward_slashes = 0",
};

/** The SQL of one chunk: at most `rows` rows after the scope's cursor, formatted by ClickHouse. */
export function chunkQuery(ch: Clickhouse, s: ExportScope, format: ExportFormat, rows: number | null) {
  const w = scopeWhere(ch, s);
  const inner = INNER[s.kind].map((c) => `${c} AS r_${c}`).join(", ");
  const params = { ...w.params, code_ids: s.codes?.ids ?? [], codes: s.codes?.codes ?? [] };
  const limit = rows === null ? "" : `LIMIT ${Math.trunc(rows)}`;
  const query = `SELECT
  ${outerColumns(s.kind, format === "csv")}
FROM (SELECT ${inner} FROM ${w.from} WHERE ${w.where} ORDER BY timestamp, ${w.id} ${limit})
ORDER BY r_timestamp, r_${w.id}
${FORMAT_SQL[format]}`;
  return { query, params };
}

/**
 * The bytes of a read, as ClickHouse formats them, piece by piece as they arrive: a ClickHouse server's
 * answer streams at the client's pace (chDB hands over its result whole). Reading the whole answer first
 * doubled the garbage a download leaves behind; the price is that a client that stops reading for longer
 * than the ClickHouse client's idle timeout (30 s) ends its download incomplete, to resume by cursor.
 */
export async function* streamChunk(ch: Clickhouse, s: ExportScope, format: ExportFormat, rows: number | null): AsyncGenerator<Buffer> {
  const { query, params } = chunkQuery(ch, s, format, rows);
  const result = await ch.client.exec({ query, query_params: params });
  for await (const part of result.stream) yield part as Buffer;
}

/** One read's bytes in one buffer (empty past the last row). */
export async function readChunk(ch: Clickhouse, s: ExportScope, format: ExportFormat, rows: number | null): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of streamChunk(ch, s, format, rows)) parts.push(part);
  return parts.length === 1 ? parts[0] : Buffer.concat(parts);
}

/** Rows of the scope per UTC hour (unix seconds of its start), oldest first: how stream.ts cuts the export into reads. */
export async function countByHour(ch: Clickhouse, s: ExportScope): Promise<{ hour: number; rows: number }[]> {
  const w = scopeWhere(ch, s);
  const rows = await ch.query<{ hour: number | string; rows: number | string }>(
    `SELECT toUnixTimestamp(toStartOfHour(timestamp)) AS hour, count() AS rows FROM ${w.from} WHERE ${w.where} GROUP BY hour ORDER BY hour`,
    w.params,
  );
  return rows.map((r) => ({ hour: Number(r.hour), rows: Number(r.rows) }));
}

/**
 * The `limit`-th row after the cursor and whether another follows it: where an answer cut by `limit`
 * stops, found before the first byte is sent so that the headers can say it.
 */
export async function findStop(ch: Clickhouse, s: ExportScope, limit: number): Promise<{ last: Cursor; more: boolean } | null> {
  const w = scopeWhere(ch, s);
  const rows = await ch.query<{ ts: string; id: string }>(
    `SELECT ${iso("timestamp")} AS ts, toString(${w.id}) AS id FROM ${w.from} WHERE ${w.where}
     ORDER BY timestamp, ${w.id} LIMIT 2 OFFSET {offset:UInt64}`,
    { ...w.params, offset: limit - 1 },
  );
  if (rows.length === 0) return null;
  return { last: { timestamp: rows[0].ts, id: rows[0].id }, more: rows.length > 1 };
}
