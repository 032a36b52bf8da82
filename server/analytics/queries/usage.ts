// The account's clicks per day of this month (usage figures and cutoff, ../click-usage.ts) as a part of
// a report's own statement, so that a report reads them without a second round trip.
import type { Clickhouse } from "../../storage/clickhouse/client";
import type { ExtraQuery } from "./visitor-days";

/** The side of the usage part in a report's statement (readCells: extra parts are 4 and up). */
export const USAGE_SIDE = 9;

/** getAccountDailyClicks as a part of a report's statement: one row per day (`dd`, clicks in `lc`). */
export function accountDailyClicksPart(ch: Clickhouse, a: { accountId: string; from: string }): ExtraQuery {
  const zeros = ["sv", "so", "x", "y", "a", "b"].map((c) => `toUInt64(0) AS ${c}`).join(", ");
  return {
    sql: `SELECT toUInt8(${USAGE_SIDE}) AS side, toString(day) AS dd, '' AS kk, toUInt64(sum(clicks)) AS lc, ${zeros}
     FROM ${ch.table("clicks_daily")} WHERE account_id = {usage_account:UUID} AND day >= {usage_from:Date} AND is_bot < 2 GROUP BY day`,
    params: { usage_account: a.accountId, usage_from: a.from },
  };
}
