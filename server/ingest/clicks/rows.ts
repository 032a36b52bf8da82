// Enriched clicks as ClickHouse reads them fastest: JSONCompactEachRow lines (positional arrays),
// handed to the engine as bytes without another serialization pass.
import type { RawClick } from "./record";
import { chTime } from "../../storage/clickhouse/format";

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
