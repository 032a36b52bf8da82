// An account's clicks this month against its tier's budget, and the earliest day its reports may show
// (the click analytics reports and the console's account page both start from it).
import type { Clickhouse } from "../storage/clickhouse/client";
import type { AccountRecord } from "../accounts/principal";
import { effectiveLimits } from "../tiers";
import type { AnalyticsUsage } from "./model";
import { addDays, findCutoffDate, monthStart } from "./range";
import { getAccountDailyClicks } from "./queries/totals";

/** The usage object and the earliest visible date: the retention start, or the cutoff when over budget. */
export async function getClickUsage(deps: { ch: Clickhouse }, account: AccountRecord, today: string) {
  return clickUsageOf(account, today, await getAccountDailyClicks(deps.ch, { accountId: account.id, from: monthStart(today) }));
}

/** The earliest date the tier's retention shows, whatever the month's clicks. */
export const retentionFloor = (account: AccountRecord, today: string) =>
  addDays(today, -(effectiveLimits(account.tier, account.limitOverrides).retentionDays - 1));

/** getClickUsage from the account's clicks per day of this month (read with a report's statement). */
export function clickUsageOf(account: AccountRecord, today: string, daily: Map<string, number>) {
  const limits = effectiveLimits(account.tier, account.limitOverrides);
  const clicksThisMonth = [...daily.values()].reduce((a, b) => a + b, 0);
  const budget = limits.clicksPerMonth;
  const usage: AnalyticsUsage = {
    clicks_this_month: clicksThisMonth,
    click_limit: budget,
    limit_exceeded: budget !== null && clicksThisMonth > budget,
    tier: account.tier,
    retention_days: limits.retentionDays,
  };
  let floor = retentionFloor(account, today);
  if (usage.limit_exceeded) {
    usage.cutoff_date = findCutoffDate(daily, budget!, today);
    if (usage.cutoff_date > floor) floor = usage.cutoff_date;
  }
  return { usage, floor };
}
