// The raw exports' parameters and columns (docs/exports.md "Raw exports").
import { t, type Static } from "elysia";
import { StrictQuery } from "../http/strict-query";

const DATE = "^[0-9]{4}-[0-9]{2}-[0-9]{2}$";
/** `<timestamp>,<id>`: the ISO time (UTC, milliseconds) and id of the last row received. */
export const CURSOR_PATTERN = "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z,[0-9a-fA-F-]{36}$";
export const EXPORT_FORMATS = ["csv", "ndjson"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
export const MAX_EXPORT_DAYS = 1_825;
export const MAX_LIMIT = 100_000_000;
/** Checked by checkQueryBounds (server/http/query-bounds.ts), which names the field. */
export const EXPORT_BOUNDS = { limit: [1, MAX_LIMIT] } as const;

const DOMAIN = {
  minLength: 1,
  maxLength: 253,
  pattern: "^[A-Za-z0-9.-]+(:[0-9]{1,5})?$",
};

export const ExportQuery = StrictQuery({
  start_date: t.Optional(t.String({ pattern: DATE, description: "First UTC day, YYYY-MM-DD (default: 29 days before end_date)" })),
  end_date: t.Optional(t.String({ pattern: DATE, description: "Last UTC day, YYYY-MM-DD, included (default: today)" })),
  format: t.Optional(
    t.Union(
      EXPORT_FORMATS.map((f) => t.Literal(f)),
      { description: "csv (default, or when Accept prefers text/csv) or ndjson (or when Accept prefers application/x-ndjson)" },
    ),
  ),
  compress: t.Optional(
    t.Literal("gzip", { description: "gzip the answer (Content-Encoding: gzip) even when Accept-Encoding does not offer it" }),
  ),
  cursor: t.Optional(
    t.String({
      pattern: CURSOR_PATTERN,
      description:
        "Resume after this row: `<timestamp>,<id>` of the last complete row received, or the X-Export-Next-Cursor of the previous answer",
    }),
  ),
  limit: t.Optional(
    t.Integer({
      description: `At most this many rows, 1 to ${MAX_LIMIT.toLocaleString("en")}; when more follow, X-Export-Next-Cursor and a Link rel=next say where to go on`,
    }),
  ),
  link_id: t.Optional(t.String({ format: "uuid", description: "Only this link's rows (404 when it is not the account's)" })),
  campaign_id: t.Optional(t.String({ format: "uuid", description: "Only the campaign's links (404 when it is not the account's)" })),
  domain: t.Optional(
    t.String({ ...DOMAIN, description: "Only links of this custom domain, by name (404 when the account has no such domain)" }),
  ),
});
export type ExportQuery = Static<typeof ExportQuery>;

export interface ExportColumn {
  name: string;
  description: string;
}
const c = (name: string, description: string): ExportColumn => ({ name, description });

/** The clicks export, in this order (the importer reads exactly these: keep them). */
export const CLICK_COLUMNS: readonly ExportColumn[] = [
  c("click_id", "the click's id (UUID)"),
  c("timestamp", "when it was served, ISO 8601 UTC with milliseconds"),
  c("link_id", "the link (UUID)"),
  c("short_code", "the link's short code (empty when the link no longer exists)"),
  c("domain", "the custom domain it came through; empty for the default domain"),
  c("country_code", "ISO 3166-1 alpha-2; XX when unknown"),
  c("region", "region name when a city database is configured, else empty"),
  c("city", "city name when a city database is configured, else empty"),
  c("device_type", "mobile, tablet or desktop"),
  c("browser", "browser family"),
  c("browser_version", "browser version"),
  c("os", "operating system"),
  c("os_version", "operating system version"),
  c("referrer", "the referrer's lower-case host; direct when none"),
  c("referrer_url", "the full Referer header as received"),
  c("language", "the visitor's preferred language (Accept-Language)"),
  c("is_bot", "true or false"),
  c("bot_kind", "preview, automation or crawler for bots; empty for people"),
];

/** The journey events export, in this order. */
export const JOURNEY_COLUMNS: readonly ExportColumn[] = [
  c("event_id", "the event's id (UUID)"),
  c("timestamp", "when it happened (the sender's time), ISO 8601 UTC with milliseconds"),
  c("link_id", "the link (UUID)"),
  c("visitor_id", "the site's own visitor id"),
  c("session_id", "the session id; empty when none"),
  c("event_type", "page_view, scroll_depth, time_on_page, custom or conversion"),
  c("event_name", "empty when none"),
  c("page_url", "the page"),
  c("page_title", "empty when none"),
  c("scroll_percent", "empty when none"),
  c("time_on_page", "seconds; empty when none"),
  c("conversion_name", "empty when none"),
  c("revenue_cents", "integer cents; 0 when none"),
  c("currency", "ISO 4217; empty when none"),
  c("country_code", "ISO 3166-1 alpha-2; empty when unknown"),
  c("region", "empty when unknown"),
  c("city", "empty when unknown"),
  c("device_type", "mobile, tablet or desktop; empty when unknown"),
  c("browser", "empty when unknown"),
  c("browser_version", "empty when unknown"),
  c("os", "empty when unknown"),
  c("os_version", "empty when unknown"),
  c("properties", "the event's properties, a JSON object"),
  c("received_at", "when the server accepted it, ISO 8601 UTC with milliseconds"),
];

/** Where an export resumes: after this row. */
export interface Cursor {
  timestamp: string;
  id: string;
}
export const cursorText = (c: Cursor) => `${c.timestamp},${c.id}`;
export function parseCursor(text: string): Cursor {
  const [timestamp, id] = text.split(",");
  return { timestamp, id: id.toLowerCase() };
}
