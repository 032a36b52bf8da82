// The spool's unflushed records (server/ingest/recent.ts) as the realtime query takes them: those of
// the scope and window, with the visitor ClickHouse will give them. A click's visitor hash and bot
// class are what the flusher's enrichment will compute (the same functions, the same daily salt).
import type { RawClick } from "../ingest/clicks/record";
import type { JourneyRecord } from "../ingest/journey/record";
import { journeyRowOf } from "../ingest/journey/rows";
import { parseUserAgent } from "../visitors/user-agent";
import type { HeldRow, RealtimeWindow } from "./queries";

const MINUTE_MS = 60_000;

const inScope = (w: RealtimeWindow, accountId: string, linkId: string, ms: number) =>
  accountId.toLowerCase() === w.accountId &&
  (w.linkIds === undefined || w.linkIds.includes(linkId.toLowerCase())) &&
  ms >= w.sinceMs &&
  ms < w.untilMs;

const held = (w: RealtimeWindow, id: string, ms: number, visitor: string): HeldRow => ({
  id,
  minute: Math.floor(ms / MINUTE_MS),
  visitor,
  recent: ms >= w.recentFromMs,
});

/** `hashVisitors`: the enrichment's visitor hasher (ingest/clicks/enrich/visitor-hash.ts). */
export async function heldClicks(
  records: RawClick[],
  w: RealtimeWindow,
  hashVisitors: (clicks: RawClick[]) => Promise<string[]>,
): Promise<HeldRow[]> {
  const humans = records.filter(
    (c) =>
      inScope(w, c.account_id, c.link_id, c.ts) && !parseUserAgent(c.ua ?? "", { mobile: c.ch_mobile, platform: c.ch_platform }).is_bot,
  );
  if (humans.length === 0) return [];
  const hashes = await hashVisitors(humans);
  return humans.map((c, i) => held(w, c.click_id, c.ts, hashes[i]));
}

/** Journey rows hold their time as ClickHouse text ("YYYY-MM-DD hh:mm:ss.mmm", UTC). */
const rowMs = (text: string) => Date.parse(`${text.replace(" ", "T")}Z`);

export function heldJourneyEvents(records: JourneyRecord[], w: RealtimeWindow): HeldRow[] {
  const out: HeldRow[] = [];
  for (const r of records) {
    const row = journeyRowOf(r);
    const ms = rowMs(String(row[2]));
    if (inScope(w, String(row[3]), String(row[4]), ms)) out.push(held(w, String(row[0]), ms, String(row[5])));
  }
  return out;
}
