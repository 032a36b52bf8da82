// The realtime figures in one ClickHouse query: the window's rows of clicks or journey_events (both
// ordered by account and link/day then time, so 30 minutes read only their own granules), minus the
// ids the spool still holds, plus the spool's unflushed records passed in as arrays; grouped by minute
// and once over all (GROUPING SETS), so the 5 minutes' visitors are distinct over the whole window.
import type { Clickhouse } from "../storage/clickhouse/client";

/** A record of the spool, as the query takes it. */
export interface HeldRow {
  id: string;
  /** Minutes since the epoch. */
  minute: number;
  visitor: string;
  /** In the 5-minute window. */
  recent: boolean;
}

export interface RealtimeWindow {
  accountId: string;
  /** Clicks: the links covered (undefined: the whole account); journey: the one link. */
  linkIds?: string[];
  sinceMs: number;
  untilMs: number;
  recentFromMs: number;
}

export interface MinuteRow {
  /** Minutes since the epoch; 0 on the row over all minutes. */
  m: number;
  events: number;
  visitors: number;
  recent_events: number;
  recent_visitors: number;
}

const SOURCES = {
  clicks: { table: "clicks", id: "click_id", visitor: "toString(visitor_hash)", where: "AND is_bot = 0" },
  journey_events: { table: "journey_events", id: "event_id", visitor: "visitor_id", where: "" },
} as const;

export async function queryRealtime(
  ch: Clickhouse,
  source: keyof typeof SOURCES,
  w: RealtimeWindow,
  held: HeldRow[],
): Promise<MinuteRow[]> {
  const s = SOURCES[source];
  const time = (p: string) => `fromUnixTimestamp64Milli({${p}:Int64}, 'UTC')`;
  const links = w.linkIds === undefined ? "" : "AND link_id IN {links:Array(UUID)}";
  // NOT IN builds a set once; with nothing held the condition is left out (an empty IN list is refused).
  const notHeld = held.length ? `AND ${s.id} NOT IN {held:Array(UUID)}` : "";
  const rows = await ch.query<Record<keyof MinuteRow, string | number>>(
    `
    SELECT m, count() AS events, uniqExact(v) AS visitors, countIf(r = 1) AS recent_events, uniqExactIf(v, r = 1) AS recent_visitors
    FROM (
      SELECT toUInt32(intDiv(toUnixTimestamp64Milli(timestamp), 60000)) AS m, ${s.visitor} AS v,
        toUInt8(timestamp >= ${time("recent")}) AS r
      FROM ${ch.table(s.table)}
      WHERE account_id = {account:UUID} ${links}
        AND timestamp >= ${time("since")} AND timestamp < ${time("until")} ${s.where} ${notHeld}
      UNION ALL
      SELECT tupleElement(x, 1) AS m, tupleElement(x, 2) AS v, tupleElement(x, 3) AS r
      FROM (SELECT arrayJoin(arrayZip({hm:Array(UInt32)}, {hv:Array(String)}, {hr:Array(UInt8)})) AS x)
    )
    GROUP BY GROUPING SETS ((m), ())`,
    {
      account: w.accountId,
      links: w.linkIds ?? [],
      since: w.sinceMs,
      until: w.untilMs,
      recent: w.recentFromMs,
      held: held.map((h) => h.id),
      hm: held.map((h) => h.minute),
      hv: held.map((h) => h.visitor),
      hr: held.map((h) => (h.recent ? 1 : 0)),
    },
  );
  return rows.map((r) => ({
    m: Number(r.m),
    events: Number(r.events),
    visitors: Number(r.visitors),
    recent_events: Number(r.recent_events),
    recent_visitors: Number(r.recent_visitors),
  }));
}
