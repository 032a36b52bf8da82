// Turns raw click records from the spool into `clicks` rows. Runs in the flusher, never on the redirect path.
import type { Clickhouse } from "../storage/clickhouse/client";
import type { RawClick } from "../ingest/records";
import { clickhouseSink } from "../ingest/sinks";

export interface ClickRow {
  click_id: string; timestamp: number; account_id: string; link_id: string; domain: string;
  visitor_hash: string; is_bot: number; bot_kind: string; device_type: string; browser: string; browser_version: string;
  os: string; os_version: string; country_code: string; region: string; city: string;
  referrer: string; referrer_url: string; language: string; query: string;
}

export type ClickEnricher = (clicks: RawClick[]) => Promise<ClickRow[]>;

export function createClickSink(ch: Clickhouse, enrich: ClickEnricher) {
  return clickhouseSink<RawClick, ClickRow>(ch, "clicks", enrich);
}
