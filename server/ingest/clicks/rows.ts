// Enriched clicks as ClickHouse reads them: RowBinary for the embedded chDB (no text to parse; see
// repository.ts), JSONCompactEachRow lines (positional arrays) for a ClickHouse server.
import type { RawClick } from "./record";
import { chTime } from "../../storage/clickhouse/format";
import type { RowBinaryWriter } from "../../storage/clickhouse/row-binary";

/** A raw click after enrichment (enrich.ts), as the `clicks` table stores it. */
export interface ClickRow {
  click_id: string;
  timestamp: number;
  account_id: string;
  link_id: string;
  domain: string;
  visitor_hash: string;
  is_bot: number;
  bot_kind: string;
  device_type: string;
  browser: string;
  browser_version: string;
  os: string;
  os_version: string;
  country_code: string;
  region: string;
  city: string;
  referrer: string;
  referrer_url: string;
  language: string;
  query: string;
  /** 'link' or 'qr'. */
  source: string;
  variant: string;
  rule: number;
}

export const CLICK_COLUMNS = [
  "click_id",
  "timestamp",
  "account_id",
  "link_id",
  "domain",
  "visitor_hash",
  "is_bot",
  "bot_kind",
  "device_type",
  "browser",
  "browser_version",
  "os",
  "os_version",
  "country_code",
  "region",
  "city",
  "referrer",
  "referrer_url",
  "language",
  "query",
  "source",
  "variant",
  "rule",
] as const satisfies readonly (keyof ClickRow)[];

export function clickRowLine(r: ClickRow): string {
  return JSON.stringify([
    r.click_id,
    chTime(r.timestamp),
    r.account_id,
    r.link_id,
    r.domain,
    r.visitor_hash,
    r.is_bot,
    r.bot_kind,
    r.device_type,
    r.browser,
    r.browser_version,
    r.os,
    r.os_version,
    r.country_code,
    r.region,
    r.city,
    r.referrer,
    r.referrer_url,
    r.language,
    r.query,
    r.source,
    r.variant,
    r.rule,
  ]);
}

/** CLICK_COLUMNS' types as RowBinary carries them (a LowCardinality(String) column reads a String). */
export const CLICK_ROW_BINARY_STRUCTURE =
  "click_id UUID, timestamp DateTime64(3, 'UTC'), account_id UUID, link_id UUID, domain String, visitor_hash UInt64, " +
  "is_bot UInt8, bot_kind String, device_type String, browser String, browser_version String, os String, os_version String, " +
  "country_code String, region String, city String, referrer String, referrer_url String, language String, query String, " +
  "source String, variant String, rule UInt8";

/** One row in CLICK_COLUMNS order, as CLICK_ROW_BINARY_STRUCTURE reads it. */
export function writeClickRowBinary(w: RowBinaryWriter, r: ClickRow) {
  w.uuid(r.click_id);
  w.i64(r.timestamp);
  w.uuid(r.account_id);
  w.uuid(r.link_id);
  w.string(r.domain);
  w.u64Text(r.visitor_hash);
  w.u8(r.is_bot);
  w.string(r.bot_kind);
  w.string(r.device_type);
  w.string(r.browser);
  w.string(r.browser_version);
  w.string(r.os);
  w.string(r.os_version);
  w.string(r.country_code);
  w.string(r.region);
  w.string(r.city);
  w.string(r.referrer);
  w.string(r.referrer_url);
  w.string(r.language);
  w.string(r.query);
  w.string(r.source);
  w.string(r.variant);
  w.u8(r.rule);
}

/** The links' newest click in a chunk, for links.last_accessed_at (malformed ids are left out). */
export function latestClickPerLink(records: readonly RawClick[]): [string, number][] {
  const latest = new Map<string, number>();
  for (const r of records) {
    const seen = latest.get(r.link_id);
    if (seen === undefined ? UUID.test(r.link_id) : r.ts > seen) latest.set(r.link_id, r.ts);
  }
  return [...latest];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
