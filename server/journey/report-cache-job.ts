// The journey job's second task: the stored state of closed days that makes the journey and conversion
// reports cheap, computed here rather than by the reports (which only read, and answer exactly from the
// bundles when it is missing or stale): the visitor counts of closed periods (closed-days-query.ts) of the
// scopes asked lately or stored before, and the per-visitor funnel states (funnel-cache-query.ts) of the
// funnels asked lately, the per-visitor retention state (retention-state-query.ts) of the links
// whose retention was asked lately, the per-visitor paths (path-state-query.ts) of the paths reports
// asked lately, and the summaries' in-memory index (summary-index.ts) of the scopes whose summary was
// asked in the last day. A round after an hour ends stores the closed hour's state; one after
// a late event, the changed day's or range's again.
//
// Its queries run under the jobs' own time limit (CLICKHOUSE_JOB_QUERY_TIMEOUT_MS, the feature passes a
// client made with `forBackground`), not the reports': on a big link they build state from months of
// bundles, and no one waits for them. One piece that fails (a time limit, a store away) is reported with
// its link and the round goes on with the others; nothing of it was stored, so the next round tries it
// again (the reports answer from the bundles meanwhile).
import type { Clickhouse } from "../storage/clickhouse/client";
import { refreshConversionIndexes } from "../conversions/read";
import { refreshClosedDays, storedScopes } from "./closed-days-query";
import { storeFunnelRange } from "./funnel-cache-query";
import { refreshPathIndex, storePathRange } from "./path-state-query";
import { dropPathIndexes } from "./path-index";
import { storeRetentionRange } from "./retention-state-query";
import { dropRetentionIndexes, refreshRetentionIndex } from "./retention-index";
import { DEMAND_TTL_MS, demandOf, recentDemand } from "./report-demand";
import { dropSummaryIndexes, refreshSummaryIndex } from "./summary-index";

/** A summary not asked for this long loses its index (its memory). */
const SUMMARY_INDEX_TTL_MS = 86_400_000;

/** A piece of a round that failed: what it was for, and why. */
export interface RefreshFailure {
  what: "closed days" | "summary index" | "funnel" | "retention" | "paths" | "conversions index";
  accountId: string;
  /** The link (or, for closed days, the scope: a link id or the whole account's). */
  linkId: string;
  steps?: string[];
  error: unknown;
}

export interface RefreshOptions {
  nowMs?: number;
  stopping?: AbortSignal;
  /** Where the queries run (the jobs' time limit); by default `ch`, whose demand is read. */
  queries?: Clickhouse;
  /** Each failed piece, once per round; without it the first failure ends the round (it throws). */
  onFailure?: (f: RefreshFailure) => void;
}

/** One round; returns how many scopes and funnels it wrote. `ch` is the reports' client: what they asked for. */
export async function refreshJourneyReports(ch: Clickhouse, opts: RefreshOptions | number = {}): Promise<number> {
  const { nowMs = Date.now(), stopping, queries = ch, onFailure } = typeof opts === "number" ? { nowMs: opts } : opts;
  const demand = demandOf(ch);
  const scopes = new Map<string, { accountId: string; scope: string }>();
  for (const s of [...recentDemand(demand.scopes, nowMs), ...(await storedScopes(queries, nowMs - DEMAND_TTL_MS))]) {
    scopes.set(`${s.accountId}/${s.scope}`, s);
  }
  let wrote = 0;
  const attempt = async (piece: Omit<RefreshFailure, "error">, run: () => Promise<boolean>) => {
    try {
      if (await run()) wrote++;
    } catch (error) {
      if (!onFailure || stopping?.aborted) throw error;
      onFailure({ ...piece, error });
    }
  };
  for (const s of scopes.values()) {
    if (stopping?.aborted) return wrote;
    await attempt({ what: "closed days", accountId: s.accountId, linkId: s.scope }, () => refreshClosedDays(queries, s, nowMs));
  }
  const summaries = recentDemand(demand.summaries, nowMs, SUMMARY_INDEX_TTL_MS);
  dropSummaryIndexes(ch, summaries);
  for (const s of summaries) {
    if (stopping?.aborted) return wrote;
    // Memory only (the index is kept per reports' client): not counted as written.
    await attempt({ what: "summary index", accountId: s.accountId, linkId: s.scope }, async () => {
      await refreshSummaryIndex(ch, s, nowMs, queries);
      return false;
    });
  }
  // The conversion reports' in-memory indexes (server/conversions/closed-index.ts): memory only, not counted.
  await refreshConversionIndexes(
    ch,
    nowMs,
    queries,
    async (d, run) => {
      await attempt({ what: "conversions index", accountId: d.scope.accountId, linkId: d.scope.linkId ?? "" }, async () => {
        await run();
        return false;
      });
    },
    stopping,
  );
  for (const f of recentDemand(demand.funnels, nowMs)) {
    if (stopping?.aborted) return wrote;
    await attempt({ what: "funnel", accountId: f.accountId, linkId: f.linkId, steps: f.steps }, () => storeFunnelRange(queries, f, nowMs));
  }
  const retention = recentDemand(demand.retention, nowMs);
  dropRetentionIndexes(ch, retention);
  for (const r of retention) {
    if (stopping?.aborted) return wrote;
    await attempt({ what: "retention", accountId: r.accountId, linkId: r.linkId }, async () => {
      let wrote = await storeRetentionRange(queries, r, nowMs);
      // Memory only (the index is kept per reports' client, retention-index.ts). When its sums moved under
      // an unchanged mark, the stored state is computed again and the index loaded from it.
      if ((await refreshRetentionIndex(ch, r, nowMs, queries)) === "restore") {
        wrote = (await storeRetentionRange(queries, r, nowMs, true)) || wrote;
        await refreshRetentionIndex(ch, r, nowMs, queries);
      }
      return wrote;
    });
  }
  // The paths indexes (memory, path-index.ts) of the ranges stored now; the others are dropped.
  const pathIndexes = new Set<string>();
  for (const p of recentDemand(demand.paths, nowMs)) {
    if (stopping?.aborted) return wrote;
    await attempt({ what: "paths", accountId: p.accountId, linkId: p.linkId }, async () => {
      const stored = await storePathRange(queries, p, nowMs);
      const key = await refreshPathIndex(ch, p, nowMs, queries);
      if (key) pathIndexes.add(key);
      return stored;
    });
  }
  dropPathIndexes(ch, pathIndexes);
  return wrote;
}
