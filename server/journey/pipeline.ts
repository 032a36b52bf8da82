// Turns accepted journey events from the spool into `journey_events` rows.
import type { Clickhouse } from "../storage/clickhouse/client";
import type { JourneyRecord } from "../ingest/records";
import { clickhouseSink } from "../ingest/sinks";
import { parseTimestamp } from "./validate";

const str = (v: unknown) => (typeof v === "string" ? v : "");
const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : null);

export function toJourneyRow(r: JourneyRecord) {
  const e = r.event;
  return {
    event_id: r.event_id,
    received_at: r.received_at,
    timestamp: typeof e.timestamp === "string" ? parseTimestamp(e.timestamp) : r.received_at,
    account_id: r.account_id,
    link_id: str(e.link_id),
    visitor_id: str(e.visitor_id),
    session_id: str(e.session_id),
    event_type: str(e.event_type),
    event_name: str(e.event_name),
    page_url: str(e.page_url),
    page_title: str(e.page_title),
    scroll_percent: num(e.scroll_percent),
    time_on_page: num(e.time_on_page),
    conversion_name: str(e.conversion_name),
    revenue_cents: num(e.revenue_cents) ?? 0,
    currency: str(e.currency),
    country_code: str(e.country_code).toUpperCase(),
    city: str(e.city),
    region: str(e.region),
    device_type: str(e.device_type),
    browser: str(e.browser),
    browser_version: str(e.browser_version),
    os: str(e.os),
    os_version: str(e.os_version),
    properties: e.properties ? JSON.stringify(e.properties) : "{}",
  };
}

export const createJourneySink = (ch: Clickhouse) =>
  clickhouseSink<JourneyRecord, ReturnType<typeof toJourneyRow>>(ch, "journey_events", (records) => records.map(toJourneyRow));
