// The paths report over journey_event_bundles (migration 0207): each event as (time, type, label), a
// page view's label the hash of its URL, another event's the hash of its event_name.
//
// A session is what the product calls one: the events of one session_id (the tracker starts a new one
// after 30 minutes without an event); a visitor's events without a session_id form one session. Per
// visitor, the session with the first event of the period that matches the target (as a funnel step
// matches: its event_name, its event_type or a page view's URL) gives the path: from that event, the
// following (forward) or earlier (backward, within the period) page views, custom events and
// conversions, consecutive repeats collapsed to their first (forward) or last (backward) event, up to
// `steps`. So every visitor who did the target in the period has exactly one path, and step 1 counts
// the visitors the funnel's first step counts for the same name. The SQL is the journey folder's
// (journey/path-state-query.ts), which also keeps the paths of closed hours that the journey job stores.
import type { Clickhouse } from "../storage/clickhouse/client";
import type { Window } from "../reports/compare";
import { queryPathsRaw, queryPathsStored, type PathRow, type PathsArgs } from "../journey/read";

export { BUNDLE_EVENT_TYPES, type PathRow } from "../journey/read";

/** The report's rows: from the journey job's stored paths when they are current (the same answer), the bundles otherwise. */
export async function queryPaths(ch: Clickhouse, a: PathsArgs, nowMs = Date.now()): Promise<PathRow[]> {
  return (await queryPathsStored(ch, a, nowMs)) ?? (await queryPathsRaw(ch, a));
}

/** Labels found per link ("kind:hash" → page URL or event name), kept per ClickHouse client: a hash's value never changes. */
const labelCache = new WeakMap<Clickhouse, Map<string, Map<string, string>>>();
/** Labels kept per link; past it the link's are dropped and found again. */
const MAX_LABELS = 20_000;

/**
 * The page URLs and event names behind label hashes, from the top values' rollups of the window's days
 * (migrations 0200, 0206), which hold every page URL and event name the link had. A label once found is
 * kept (the hash of a value is that value's, whatever the window): only hashes not seen yet are read.
 */
export async function queryLabels(ch: Clickhouse, accountId: string, linkId: string, w: Window, hashes: string[]) {
  let links = labelCache.get(ch);
  if (!links) {
    links = new Map();
    labelCache.set(ch, links);
  }
  let known = links.get(`${accountId}/${linkId}`);
  if (!known || known.size > MAX_LABELS) {
    known = new Map();
    links.set(`${accountId}/${linkId}`, known);
  }
  const missing = hashes.filter((h) => !known.has(`page:${h}`) && !known.has(`event:${h}`));
  if (missing.length > 0) {
    const rows = await ch.query<{ kind: string; h: string; label: string }>(
      `
    SELECT kind, toString(cityHash64(value)) AS h, any(value) AS label FROM ${ch.table("journey_tops_daily")}
    WHERE account_id = {account:UUID} AND link_id = {link:UUID}
      AND day >= toDate(fromUnixTimestamp64Milli({from:Int64}, 'UTC')) AND day <= toDate(fromUnixTimestamp64Milli({to:Int64}, 'UTC'))
      AND toString(cityHash64(value)) IN {hashes:Array(String)}
    GROUP BY kind, h`,
      { account: accountId, link: linkId, from: w.fromMs, to: w.toMs, hashes: missing },
    );
    for (const r of rows) known.set(`${r.kind}:${r.h}`, r.label);
  }
  return known;
}
