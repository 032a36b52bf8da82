// What the clicks spool holds: one raw click record per served redirect (server/redirect/record-click.ts).
// Spool files are local and deleted once flushed; raw addresses never reach ClickHouse (the enrichment
// turns them into a country and a visitor hash).

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
