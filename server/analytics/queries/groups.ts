// Clicks split by A/B variant, targeting rule or source (clicks_daily_targets, migration 0221), and a
// link's conversions split the same way (journey events joined to the click whose id is their visitor id,
// as the tracker sends it after an svc_ref redirect).
import type { Clickhouse } from "../../storage/clickhouse/client";
import type { ClickGroup, ClickScope } from "../model";
import { dailyScope, num, VISITORS, VISITORS_IF } from "./scope";

/** Rows of a group: variant '' and rule 0 mean "no variant" and "no rule", which are left out. */
const GROUP_FILTER: Record<ClickGroup, string> = { variant: " AND variant != ''", rule: " AND rule != 0", source: "" };

export interface ClickGroupRow {
  date?: string;
  link_id?: string;
  value: string | number;
  clicks: number;
  unique_visitors: number;
}

const groupValue = (group: ClickGroup, v: unknown) => (group === "rule" ? num(v) : String(v));

/** Per (link, value), or per value for source; per day too with `perDay`. */
export async function getClickGroups(ch: Clickhouse, scope: ClickScope, group: ClickGroup, perDay: boolean): Promise<ClickGroupRow[]> {
  const { where, params } = dailyScope(scope);
  const keys = [
    ...(perDay ? ["toString(day) AS date"] : []),
    ...(group === "source" ? [] : ["toString(link_id) AS link"]),
    `${group} AS value`,
  ];
  const names = keys.map((k) => k.split(" AS ")[1]);
  const rows = await ch.query(
    `SELECT ${keys.join(", ")}, sum(clicks) AS c, ${VISITORS} AS v
     FROM ${ch.table("clicks_daily_targets")} WHERE ${where}${GROUP_FILTER[group]}
     GROUP BY ${names.join(", ")} ORDER BY ${perDay ? "date, " : ""}c DESC, ${names.filter((n) => n !== "date").join(", ")} LIMIT 10000`,
    params,
  );
  return rows.map((r) => ({
    ...(perDay ? { date: String(r.date) } : {}),
    ...(group === "source" ? {} : { link_id: String(r.link) }),
    value: groupValue(group, r.value),
    clicks: num(r.c),
    unique_visitors: num(r.v),
  }));
}

export interface LinkGroupRow {
  value: string | number;
  human_clicks: number;
  bot_clicks: number;
  unique_visitors: number;
  conversions: number;
  converters: number;
  revenue_cents: number;
}

/** One link's lifetime clicks and conversions per value of the group. */
export async function getLinkGroups(ch: Clickhouse, a: { accountId: string; linkId: string; group: ClickGroup }): Promise<LinkGroupRow[]> {
  const params = { account: a.accountId, link: a.linkId };
  const scope = "account_id = {account:UUID} AND link_id = {link:UUID}";
  const [clicks, conversions] = await Promise.all([
    ch.query(
      `SELECT ${a.group} AS value, sumIf(clicks, is_bot = 0) AS human, sumIf(clicks, is_bot = 1) AS bot,
              ${VISITORS_IF("is_bot = 0")} AS v
       FROM ${ch.table("clicks_daily_targets")} WHERE ${scope}${GROUP_FILTER[a.group]} GROUP BY value`,
      params,
    ),
    ch.query(
      `SELECT c.value AS value, count() AS n, uniqExact(j.visitor_id) AS converters, sum(j.revenue_cents) AS cents
       FROM ${ch.table("journey_events")} AS j
       INNER JOIN (SELECT toString(click_id) AS cid, ${a.group} AS value FROM ${ch.table("clicks")} WHERE ${scope}${GROUP_FILTER[a.group]}) AS c
         ON c.cid = j.visitor_id
       WHERE j.account_id = {account:UUID} AND j.link_id = {link:UUID} AND j.event_type = 'conversion'
       GROUP BY value`,
      params,
    ),
  ]);
  const byValue = new Map<string, LinkGroupRow>();
  const row = (v: unknown) => {
    const value = groupValue(a.group, v);
    let r = byValue.get(String(value));
    if (!r) {
      r = { value, human_clicks: 0, bot_clicks: 0, unique_visitors: 0, conversions: 0, converters: 0, revenue_cents: 0 };
      byValue.set(String(value), r);
    }
    return r;
  };
  for (const c of clicks) Object.assign(row(c.value), { human_clicks: num(c.human), bot_clicks: num(c.bot), unique_visitors: num(c.v) });
  for (const c of conversions)
    Object.assign(row(c.value), { conversions: num(c.n), converters: num(c.converters), revenue_cents: num(c.cents) });
  return [...byValue.values()];
}
