// The WHERE clause every analytics query shares. Only fixed SQL text is chosen here; every value is a
// bound parameter.
import type { ClickScope } from "../model";

export const num = (v: unknown) => Number(v ?? 0);
/** Epoch milliseconds from toUnixTimestamp64Milli; 0 (no clicks) → null. */
export const isoOrNull = (ms: unknown) => (num(ms) > 0 ? new Date(num(ms)).toISOString() : null);

/** For the daily aggregates (column `day`). */
export function dailyScope(s: ClickScope) {
  return {
    where: [
      "account_id = {account:UUID}",
      "day >= {start:Date} AND day <= {end:Date}",
      botCondition(s),
      s.domain !== undefined ? "domain = {domain:String}" : "",
    ]
      .filter(Boolean)
      .join(" AND "),
    params: params(s),
  };
}

/** For the hourly aggregate (column `hour`, UTC). */
export function hourlyScope(s: ClickScope) {
  return {
    where: [
      "account_id = {account:UUID}",
      "hour >= toDateTime({start:Date}, 'UTC') AND hour < toDateTime({end:Date} + 1, 'UTC')",
      botCondition(s),
      s.domain !== undefined ? "domain = {domain:String}" : "",
    ]
      .filter(Boolean)
      .join(" AND "),
    params: params(s),
  };
}

const botCondition = (s: ClickScope) => (s.botFilter === "real" ? "is_bot = 0" : s.botFilter === "bot" ? "is_bot = 1" : "");

const params = (s: ClickScope) => ({
  account: s.accountId,
  start: s.range.start,
  end: s.range.end,
  ...(s.domain !== undefined ? { domain: s.domain } : {}),
});
