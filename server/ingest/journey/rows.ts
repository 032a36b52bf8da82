// Accepted journey events become `journey_events` rows at accept time, so the spool holds each batch
// as one line `[[row],[row],…]` of positional rows. The flusher (sink.ts) blanks each line's outer
// brackets, which leaves JSONCompactEachRow input (rows separated by commas), and hands the bytes to
// ClickHouse untouched: no parse or serialization in JS, and chDB parses JSONCompactEachRow about twice
// as fast as JSONEachRow. Rows written by the previous version lack the last column (has_revenue,
// migration 0210); ClickHouse fills it from its default, so one chunk may hold both.
import type { JourneyEventRecord, JourneyRecord, JourneyRow } from "./record";
import type { JourneyEvent } from "../../journey/model";
import { isoTimeMs } from "../../iso-time";
import { chTime } from "../../storage/clickhouse/format";

export const JOURNEY_COLUMNS = [
  "event_id",
  "received_at",
  "timestamp",
  "account_id",
  "link_id",
  "visitor_id",
  "session_id",
  "event_type",
  "event_name",
  "page_url",
  "page_title",
  "scroll_percent",
  "time_on_page",
  "conversion_name",
  "revenue_cents",
  "currency",
  "country_code",
  "city",
  "region",
  "device_type",
  "browser",
  "browser_version",
  "os",
  "os_version",
  "properties",
  "has_revenue",
] as const;

const str = (v: unknown) => (typeof v === "string" ? v : "");
const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : null);

/**
 * One row in JOURNEY_COLUMNS order. `received` is chTime(receivedMs), computed once per batch. The first
 * value is always the event id: the row count relies on it. revenue_cents is 0 when absent, and
 * has_revenue says whether it was sent.
 */
export function toJourneyRow(
  eventId: string,
  receivedMs: number,
  received: string,
  accountId: string,
  e: JourneyEvent | Record<string, unknown>,
): JourneyRow {
  const ts = typeof e.timestamp === "string" ? chTime(isoTimeMs(e.timestamp)) : received;
  return [
    eventId,
    received,
    ts,
    accountId,
    str(e.link_id),
    str(e.visitor_id),
    str(e.session_id),
    str(e.event_type),
    str(e.event_name),
    str(e.page_url),
    str(e.page_title),
    num(e.scroll_percent),
    num(e.time_on_page),
    str(e.conversion_name),
    num(e.revenue_cents) ?? 0,
    str(e.currency),
    str(e.country_code).toUpperCase(),
    str(e.city),
    str(e.region),
    str(e.device_type),
    str(e.browser),
    str(e.browser_version),
    str(e.os),
    str(e.os_version),
    e.properties ? JSON.stringify(e.properties) : "{}",
    typeof e.revenue_cents === "number" ? 1 : 0,
  ];
}

const isRow = (r: JourneyRecord): r is JourneyRow => Array.isArray(r);
const fromObject = (r: JourneyEventRecord) => toJourneyRow(r.event_id, r.received_at, chTime(r.received_at), r.account_id, r.event);

/** A spooled record as its row: rows as they are, the object form (older spools) converted. */
export const journeyRowOf = (r: JourneyRecord): JourneyRow => (isRow(r) ? r : fromObject(r));

/**
 * What the realtime reports read of an unflushed event (ingest/recent.ts, realtime/held.ts): the row's
 * first six columns (event id, received, timestamp, account, link, visitor), still a row in
 * JOURNEY_COLUMNS order up to there; the rest (URL, title, properties…) is left to the collector.
 */
export const journeyRealtimeRow = (r: JourneyRecord): JourneyRow => journeyRowOf(r).slice(0, 6);

/** The event id of a spooled record (the spool's crash reconcile checks the in-flight chunk by it). */
export const journeyEventId = (r: JourneyRecord) => String(isRow(r) ? r[0] : r.event_id);

const NEWLINE = 0x0a;
const SPACE = 0x20;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const COMMA = 0x2c;
const CLOSE_BRACKET = 0x5d;
const ROW_BOUNDARY = Buffer.from('],["');

/**
 * Turns spool lines into JSONCompactEachRow input in place and returns the row count, or -1 (buffer
 * untouched) when a line holds the object form or is a binary line (row-binary.ts). Rows hold only scalars and start with the event id, so
 * a `],["` followed by anything but a comma or a bracket is a boundary between rows, whatever the last
 * value of a row is: inside a string a `"` is escaped, so there the same bytes can only be a string
 * ending in `],[` whose closing quote is followed by a comma or the row's end.
 */
export function spoolLinesToRows(buf: Buffer): number {
  const brackets: number[] = [];
  let rows = 0;
  for (let start = 0; start < buf.length; ) {
    let end = buf.indexOf(NEWLINE, start);
    if (end < 0) end = buf.length;
    if (end - start >= 2) {
      if (buf[start] !== OPEN_BRACKET || buf[start + 1] === OPEN_BRACE) return -1;
      brackets.push(start, end - 1);
      if (end - start > 2) rows += 1;
    }
    start = end + 1;
  }
  for (const at of brackets) buf[at] = SPACE;
  for (let at = buf.indexOf(ROW_BOUNDARY); at >= 0; at = buf.indexOf(ROW_BOUNDARY, at + ROW_BOUNDARY.length)) {
    const next = buf[at + ROW_BOUNDARY.length];
    if (next !== COMMA && next !== CLOSE_BRACKET) rows += 1;
  }
  return rows;
}
