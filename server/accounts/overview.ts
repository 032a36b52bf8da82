// The console's account page: the tier, its limits, and this month's usage against them.
import { getClickUsage } from "../analytics/click-usage";
import { isoDay } from "../analytics/range";
import { readJourneyUsage } from "../journey/read";
import { monthOf } from "../journey/usage";
import { countEndpoints } from "../webhooks/read";
import type { AccountRecord } from "./principal";
import type { Clickhouse } from "../storage/clickhouse/client";
import type { Postgres } from "../storage/postgres/client";
import { effectiveLimits, TIER_LIMITS } from "../tiers";
import { countActiveKeys } from "./repository";

export async function getAccountOverview(deps: { pg: Postgres; ch: Clickhouse }, account: AccountRecord) {
  const now = Date.now();
  const limits = effectiveLimits(account.tier, account.limitOverrides);
  const [clicks, journeyEvents, keys, webhooks] = await Promise.all([
    getClickUsage(deps, account, isoDay(now)),
    readJourneyUsage(deps.pg.db, account.id, monthOf(now)),
    countActiveKeys(deps.pg.db, account.id),
    countEndpoints(deps.pg.db, account.id),
  ]);
  return {
    account: { id: account.id, name: account.name, tier: account.tier, created_at: account.createdAt.toISOString() },
    month: monthOf(now).slice(0, 7),
    usage: {
      clicks_this_month: clicks.usage.clicks_this_month,
      click_limit: limits.clicksPerMonth,
      journey_events_this_month: journeyEvents,
      journey_event_limit: limits.journeyEventsPerMonth,
      api_keys: keys,
      api_key_limit: TIER_LIMITS[account.tier].apiKeys,
      webhook_endpoints: webhooks,
      webhook_endpoint_limit: limits.webhookEndpoints,
    },
    limits: {
      requests_per_hour: limits.requestsPerHour,
      retention_days: limits.retentionDays,
      bulk_batch_max: limits.bulkBatchMax,
    },
  };
}
