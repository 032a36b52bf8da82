// The realtime reports: clicks of the account or a link, journey events of a link; what ClickHouse holds
// merged with what this instance's spool holds and ClickHouse not yet, each record counted once. No Elysia here.
import type { RawClick } from "../ingest/clicks/record";
import type { JourneyRecord } from "../ingest/journey/record";
import { resolveReportLinks } from "../reports/scope";
import type { Clickhouse } from "../storage/clickhouse/client";
import type { DbOrTx } from "../storage/postgres/client";
import { heldClicks, heldJourneyEvents } from "./held";
import { RECENT_MINUTES, SERIES_MINUTES, type Realtime } from "./model";
import { queryRealtime, type HeldRow, type MinuteRow, type RealtimeWindow } from "./queries";

export interface RealtimeDeps {
  db: DbOrTx;
  ch: Clickhouse;
  /** The unflushed records of this instance's spools (ingest/recent.ts). */
  unflushed: { clicks(): RawClick[]; journey(): JourneyRecord[] };
  hashVisitors: (clicks: RawClick[]) => Promise<string[]>;
}

const MINUTE_MS = 60_000;

/** The 30 minutes up to the end of the current one; the 5 minutes up to now (and the current minute's end). */
export function realtimeWindow(accountId: string, linkIds: string[] | undefined, nowMs: number): RealtimeWindow {
  const current = Math.floor(nowMs / MINUTE_MS);
  return {
    accountId,
    linkIds,
    sinceMs: (current - SERIES_MINUTES + 1) * MINUTE_MS,
    untilMs: (current + 1) * MINUTE_MS,
    recentFromMs: nowMs - RECENT_MINUTES * MINUTE_MS,
  };
}

function report(source: Realtime["source"], w: RealtimeWindow, rows: MinuteRow[], held: HeldRow[], nowMs: number): Realtime {
  const byMinute = new Map(rows.filter((r) => r.m !== 0).map((r) => [r.m, r]));
  const total = rows.find((r) => r.m === 0);
  const first = w.sinceMs / MINUTE_MS;
  return {
    source,
    as_of: new Date(nowMs).toISOString(),
    visitors: total?.recent_visitors ?? 0,
    events: total?.recent_events ?? 0,
    minutes: Array.from({ length: SERIES_MINUTES }, (_, i) => {
      const r = byMinute.get(first + i);
      return { minute: new Date((first + i) * MINUTE_MS).toISOString(), visitors: r?.visitors ?? 0, events: r?.events ?? 0 };
    }),
    unflushed: held.length,
  };
}

/**
 * The spool is read before ClickHouse: a record flushed in between is excluded from ClickHouse's rows by
 * its id, and one written in between is in neither (it is newer than the figures' moment).
 */
export async function getClicksRealtime(
  deps: RealtimeDeps,
  accountId: string,
  q: { link_id?: string; campaign_id?: string },
  nowMs = Date.now(),
) {
  // campaign_id: a shared campaign dashboard's live links (server/shares/); the API's route takes link_id only.
  const { linkIds } = await resolveReportLinks(deps.db, accountId, { linkId: q.link_id, campaignId: q.campaign_id });
  const w = realtimeWindow(accountId, linkIds, nowMs);
  const held = await heldClicks(deps.unflushed.clicks(), w, deps.hashVisitors);
  return report("clicks", w, await queryRealtime(deps.ch, "clicks", w, held), held, nowMs);
}

export async function getJourneyRealtime(deps: RealtimeDeps, accountId: string, linkId: string, nowMs = Date.now()) {
  const { link } = await resolveReportLinks(deps.db, accountId, { linkId });
  const w = realtimeWindow(accountId, [link!.id], nowMs);
  const held = heldJourneyEvents(deps.unflushed.journey(), w);
  return report("journey_events", w, await queryRealtime(deps.ch, "journey_events", w, held), held, nowMs);
}
