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
  const limits = effectiveLimits(account.tier, account.limitOverrides);
  const daily = await getAccountDailyClicks(deps.ch, { accountId: account.id, from: monthStart(today) });
  const clicksThisMonth = [...daily.values()].reduce((a, b) => a + b, 0);
  const budget = limits.clicksPerMonth;
  const usage: AnalyticsUsage = {
    clicks_this_month: clicksThisMonth,
    click_limit: budget,
    limit_exceeded: budget !== null && clicksThisMonth > budget,
    tier: account.tier,
    retention_days: limits.retentionDays,
  };
  let floor = addDays(today, -(limits.retentionDays - 1));
  if (usage.limit_exceeded) {
    usage.cutoff_date = findCutoffDate(daily, budget!, today);
    if (usage.cutoff_date > floor) floor = usage.cutoff_date;
  }
  return { usage, floor };
}
