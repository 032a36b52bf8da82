// What the spools hold: raw click records (written by the redirect) and accepted journey events.
// Spool files are local and deleted once flushed; raw addresses never reach ClickHouse.

export interface RawClick {
  click_id: string;
  ts: number; // epoch ms
  account_id: string;
  link_id: string;
  domain: string;
  ua: string;
  ip: string;
  referrer: string;
  lang: string;
  query: string;
  /** Country from a trusted proxy header (CF-IPCountry…), only when TRUST_PROXY is set. */
  geo_country?: string;
  /** Client hints, when the browser sent them. */
  ch_mobile?: string;
  ch_platform?: string;
  ch_ua?: string;
  /** "qr" when the short URL was opened from its QR code; absent for a plain click (and in older spools). */
  src?: "qr";
  /** The A/B variant's URL that served the click, when one did. */
  variant?: string;
  /** The 1-based targeting rule that served the click, when one did. */
  rule?: number;
}

/**
 * An accepted journey event as the spool holds it: its `journey_events` row, positional in
 * JOURNEY_COLUMNS order (server/journey/pipeline.ts), which the flusher passes to ClickHouse as it is;
 * or the object form of spools written before rows.
 */
export type JourneyRecord = JourneyRow | JourneyEventRecord;

export type JourneyRow = (string | number | null)[];

/** The object form: a journey event as accepted by POST /journey/events, with the server's additions. */
export interface JourneyEventRecord {
  event_id: string;
  received_at: number; // epoch ms
  account_id: string;
  event: Record<string, unknown>;
}
