// The journey job's second task: the stored state of closed days that makes the journey and conversion
// reports cheap, computed here rather than by the reports (which only read, and answer exactly from the
// bundles when it is missing or stale): the visitor counts of closed periods (closed-days-query.ts) of the
// scopes asked lately or stored before, and the per-visitor funnel states (funnel-cache-query.ts) of the
// funnels asked lately, the per-visitor retention state (retention-state-query.ts) of the links
// whose retention was asked lately, the per-visitor paths (path-state-query.ts) of the paths reports
// asked lately, and the summaries' in-memory index (summary-index.ts) of the scopes whose summary was
// asked in the last day. A round after an hour ends stores the closed hour's state; one after
// a late event, the changed day's or range's again.
import type { Clickhouse } from "../storage/clickhouse/client";
import { refreshClosedDays, storedScopes } from "./closed-days-query";
import { storeFunnelRange } from "./funnel-cache-query";
import { storePathRange } from "./path-state-query";
import { storeRetentionRange } from "./retention-state-query";
import { DEMAND_TTL_MS, demandOf, recentDemand } from "./report-demand";
import { dropSummaryIndexes, refreshSummaryIndex } from "./summary-index";

/** A summary not asked for this long loses its index (its memory). */
const SUMMARY_INDEX_TTL_MS = 86_400_000;

/** One round; returns how many scopes and funnels it wrote. */
export async function refreshJourneyReports(ch: Clickhouse, nowMs = Date.now(), stopping?: AbortSignal): Promise<number> {
  const demand = demandOf(ch);
  const scopes = new Map<string, { accountId: string; scope: string }>();
  for (const s of [...recentDemand(demand.scopes, nowMs), ...(await storedScopes(ch, nowMs - DEMAND_TTL_MS))]) {
    scopes.set(`${s.accountId}/${s.scope}`, s);
  }
  let wrote = 0;
  for (const s of scopes.values()) {
    if (stopping?.aborted) return wrote;
    if (await refreshClosedDays(ch, s, nowMs)) wrote++;
  }
  const summaries = recentDemand(demand.summaries, nowMs, SUMMARY_INDEX_TTL_MS);
  dropSummaryIndexes(ch, summaries);
  for (const s of summaries) {
    if (stopping?.aborted) return wrote;
    await refreshSummaryIndex(ch, s, nowMs); // memory only: not counted as written
  }
  for (const f of recentDemand(demand.funnels, nowMs)) {
    if (stopping?.aborted) return wrote;
    if (await storeFunnelRange(ch, f, nowMs)) wrote++;
  }
  for (const r of recentDemand(demand.retention, nowMs)) {
    if (stopping?.aborted) return wrote;
    if (await storeRetentionRange(ch, r, nowMs)) wrote++;
  }
  for (const p of recentDemand(demand.paths, nowMs)) {
    if (stopping?.aborted) return wrote;
    if (await storePathRange(ch, p, nowMs)) wrote++;
  }
  return wrote;
}
