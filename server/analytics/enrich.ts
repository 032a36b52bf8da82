// Click enrichment: filled in by the click-analytics work (user agent, bots, geo, visitor hash, referrer host).
import type { RawClick } from "../ingest/records";
import type { ClickRow } from "./click-pipeline";

export function createClickEnricher() {
  return async (clicks: RawClick[]): Promise<ClickRow[]> =>
    clicks.map((c) => ({
      click_id: c.click_id, timestamp: c.ts, account_id: c.account_id, link_id: c.link_id, domain: c.domain,
      visitor_hash: "0", is_bot: 0, bot_kind: "", device_type: "desktop", browser: "", browser_version: "",
      os: "", os_version: "", country_code: "XX", region: "", city: "",
      referrer: c.referrer ? new URL(c.referrer).host : "direct", referrer_url: c.referrer, language: c.lang, query: c.query,
    }));
}
