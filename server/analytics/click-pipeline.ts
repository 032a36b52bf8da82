// The click pipeline's row: a raw click from the spool after enrichment (enrich.ts), as the `clicks`
// table stores it. The flusher (click-flush/) runs the pipeline off the redirect path.
import type { RawClick } from "../ingest/records";

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

export type ClickEnricher = (clicks: RawClick[]) => Promise<ClickRow[]>;
