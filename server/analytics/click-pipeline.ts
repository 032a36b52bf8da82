// Turns raw click records from the spool into `clicks` rows (enrich.ts), inserts them in one block per
// spool chunk, then moves the links' last_accessed_at forward in one statement. A replayed chunk is
// dropped by ClickHouse (same token) and the Postgres update is idempotent (greatest).
import type { Clickhouse } from "../storage/clickhouse/client";
import type { Postgres } from "../storage/postgres/client";
import type { RawClick } from "../ingest/records";
import { clickhouseSink } from "../ingest/sinks";
import { touchLinksLastAccessed } from "./repository";

export interface ClickRow {
  click_id: string; timestamp: number; account_id: string; link_id: string; domain: string;
  visitor_hash: string; is_bot: number; bot_kind: string; device_type: string; browser: string; browser_version: string;
  os: string; os_version: string; country_code: string; region: string; city: string;
  referrer: string; referrer_url: string; language: string; query: string;
}

export type ClickEnricher = (clicks: RawClick[]) => Promise<ClickRow[]>;

export function createClickSink(ch: Clickhouse, enrich: ClickEnricher, pg?: Postgres) {
  const insert = clickhouseSink<RawClick, ClickRow>(ch, "clicks", enrich);
  return async (records: RawClick[], token: string) => {
    await insert(records, token);
    if (pg) await touchLinksLastAccessed(pg, latestClickPerLink(records));
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function latestClickPerLink(records: RawClick[]): Map<string, number> {
  const latest = new Map<string, number>();
  for (const r of records) {
    if (UUID.test(r.link_id)) latest.set(r.link_id, Math.max(latest.get(r.link_id) ?? 0, r.ts));
  }
  return latest;
}
