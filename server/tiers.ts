// The tier table: every quota and limit of each tier, in one place (docs/api.md "Tiers").
import { AppError } from "./errors";
export const TIERS = ["free", "basic", "growth", "pro", "business", "scale"] as const;
export type Tier = (typeof TIERS)[number];

export interface TierLimits {
  requestsPerHour: number;
  apiKeys: number | null; // null: unlimited
  webhookEndpoints: number;
  clicksPerMonth: number | null; // null: unlimited
  retentionDays: number;
  journeyEventsPerMonth: number;
  bulkBatchMax: number;
  /** Data rows of one file given to POST /imports. */
  importRowsMax: number;
}

export const TIER_LIMITS: Record<Tier, TierLimits> = {
  free: {
    requestsPerHour: 50,
    apiKeys: 1,
    webhookEndpoints: 1,
    clicksPerMonth: 1_000,
    retentionDays: 30,
    journeyEventsPerMonth: 10_000,
    bulkBatchMax: 10,
    importRowsMax: 1_000,
  },
  basic: {
    requestsPerHour: 500,
    apiKeys: 3,
    webhookEndpoints: 2,
    clicksPerMonth: 10_000,
    retentionDays: 90,
    journeyEventsPerMonth: 100_000,
    bulkBatchMax: 100,
    importRowsMax: 10_000,
  },
  growth: {
    requestsPerHour: 5_000,
    apiKeys: 10,
    webhookEndpoints: 5,
    clicksPerMonth: 100_000,
    retentionDays: 365,
    journeyEventsPerMonth: 500_000,
    bulkBatchMax: 500,
    importRowsMax: 100_000,
  },
  pro: {
    requestsPerHour: 25_000,
    apiKeys: 25,
    webhookEndpoints: 10,
    clicksPerMonth: 500_000,
    retentionDays: 730,
    journeyEventsPerMonth: 2_000_000,
    bulkBatchMax: 1_000,
    importRowsMax: 250_000,
  },
  business: {
    requestsPerHour: 100_000,
    apiKeys: 50,
    webhookEndpoints: 25,
    clicksPerMonth: 2_500_000,
    retentionDays: 1_095,
    journeyEventsPerMonth: 10_000_000,
    bulkBatchMax: 5_000,
    importRowsMax: 500_000,
  },
  scale: {
    requestsPerHour: 250_000,
    apiKeys: null,
    webhookEndpoints: 50,
    clicksPerMonth: null,
    retentionDays: 1_825,
    journeyEventsPerMonth: 50_000_000,
    bulkBatchMax: 10_000,
    importRowsMax: 1_000_000,
  },
};

export const tierRank = (tier: Tier) => TIERS.indexOf(tier);
export const tierAtLeast = (tier: Tier, required: Tier) => tierRank(tier) >= tierRank(required);

/**
 * 403 TIER_UPGRADE_REQUIRED unless `tier` is `required` or higher. `what` starts the message and
 * carries its verb ("Campaigns need", "OG image upload needs"); `field`, when given, names the input.
 */
export function requireTier(tier: Tier, required: Tier, what: string, field?: string): void {
  if (tierAtLeast(tier, required)) return;
  const name = required[0].toUpperCase() + required.slice(1);
  throw new AppError("TIER_UPGRADE_REQUIRED", `${what} the ${name} tier or higher`, {
    required_tier: required,
    ...(field ? { field } : {}),
  });
}

export interface LimitOverrides {
  journey_events_per_month?: number | null;
  clicks_per_month?: number | null;
}

/** The account's effective limits: the tier's, with the admin's overrides on top. */
export function effectiveLimits(tier: Tier, overrides: LimitOverrides | null | undefined): TierLimits {
  const base = TIER_LIMITS[tier];
  return {
    ...base,
    journeyEventsPerMonth: overrides?.journey_events_per_month ?? base.journeyEventsPerMonth,
    clicksPerMonth: overrides?.clicks_per_month ?? base.clicksPerMonth,
  };
}
