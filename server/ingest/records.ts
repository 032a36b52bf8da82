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
}

/** A journey event as accepted by POST /journey/events, with the server's additions. */
export interface JourneyRecord {
  event_id: string;
  received_at: number; // epoch ms
  account_id: string;
  event: Record<string, unknown>;
}
