// Click enrichment, in the spool's flusher (never on the redirect path): user agent → device, browser,
// OS and bot class; address → country/region/city; referrer → host; (salt, address, agent) → visitor
// hash. Deterministic for a given input, so a replayed spool chunk yields identical rows.
import type { RawClick } from "./record";
import type { Postgres } from "../../storage/postgres/client";
import type { Clickhouse } from "../../storage/clickhouse/client";
import type { ClickRow } from "./rows";
import { parseUserAgent } from "../../visitors/user-agent";
import { createGeoLocator } from "../../visitors/geo";
import { normalizeDomain, referrerHost } from "../../visitors/hosts";
import { createVisitorHasher, visitorHashStore, type VisitorHashStore } from "./enrich/visitor-hash";

export interface EnricherDeps {
  /** The stores behind visitor hashing: Postgres and ClickHouse, or a store (the flush worker's). */
  store: VisitorHashStore | { pg: Postgres; ch: Clickhouse };
  /** APP_SECRET: keys the visitor hashes (visitor-hash.ts). */
  hashSecret: string;
  /** Trust RawClick.geo_country (set by the redirect from the proxy's header only when TRUST_PROXY). */
  trustProxy: boolean;
  /** A MaxMind-format city database; the bundled GeoLite2 country database otherwise. */
  geoipCityDb?: string;
}

export type ClickEnricher = (clicks: RawClick[]) => Promise<ClickRow[]>;

export function createClickEnricher(deps: EnricherDeps): ClickEnricher {
  const locate = createGeoLocator({ cityDbPath: deps.geoipCityDb });
  const hashVisitors = createVisitorHasher("findSalt" in deps.store ? deps.store : visitorHashStore(deps.store), deps.hashSecret);
  return async (clicks: RawClick[]): Promise<ClickRow[]> => {
    const hashes = await hashVisitors(clicks);
    const rows: ClickRow[] = [];
    for (let i = 0; i < clicks.length; i++) {
      // Yield now and then, so enriching a large chunk never holds up redirects for long.
      if (i > 0 && i % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
      const c = clicks[i];
      const agent = parseUserAgent(c.ua ?? "", { mobile: c.ch_mobile, platform: c.ch_platform });
      const geo = locate(c.ip ?? "", deps.trustProxy ? c.geo_country : undefined);
      rows.push({
        click_id: c.click_id,
        timestamp: c.ts,
        account_id: c.account_id,
        link_id: c.link_id,
        domain: normalizeDomain(c.domain ?? ""),
        visitor_hash: hashes[i],
        is_bot: agent.is_bot,
        bot_kind: agent.bot_kind,
        device_type: agent.device_type,
        browser: agent.browser,
        browser_version: agent.browser_version,
        os: agent.os,
        os_version: agent.os_version,
        ...geo,
        referrer: referrerHost(c.referrer ?? ""),
        referrer_url: c.referrer ?? "",
        language: c.lang ?? "",
        query: c.query ?? "",
        // Absent in plain clicks and in spools written before QR codes, rules and variants.
        source: c.src ?? "link",
        variant: c.variant ?? "",
        rule: c.rule ?? 0,
      });
    }
    return rows;
  };
}

const YIELD_EVERY = 1_000;
