// The journey reports (summary, sessions, events, funnel) of one link; no Elysia here.
import { validationError } from "../errors";
import type { Page } from "../http/envelope";
import type { Clickhouse } from "../storage/clickhouse/client";
import type { DbOrTx } from "../storage/postgres/client";
import { MAX_FUNNEL_STEPS, PERIODS, type Period } from "./model";
import { periodStartMs } from "../reports/period";
import { rollingWindow, withComparison, type Compare, type CompareOptions, type Window } from "../reports/compare";
import { percent } from "../reports/numbers";
import { journeyStore } from "../reports/compared-store";
import { resolveReportScope } from "../reports/scope";
import * as queries from "./queries";
import { funnelWindowFingerprint } from "./funnel-compared-query";
import { listJourneySessions } from "./sessions-query";
import { importedJourneyFigures } from "../imports/read";

export interface ReportDeps {
  db: DbOrTx;
  ch: Clickhouse;
}

/** The link's range for queries; 404 for an unknown, deleted or another account's link alike (reports/scope.ts). */
export async function resolveLinkRange(db: DbOrTx, accountId: string, linkId: string, period?: Period): Promise<queries.LinkRange> {
  const scope = await resolveReportScope(db, accountId, { linkId }, periodStartMs(period));
  return { accountId, linkId: scope.link!.id, fromMs: scope.period };
}

/**
 * The report over the link's period, and with `compare` over the compared window too (reports/compare.ts):
 * the period's whole hours shifted back, read with an end bound (exactly, from the bundles, where the
 * stored closed-period state only counts up to now), and kept in the compared-window store
 * (reports/compared-store.ts) under `report` and `params`, checked by `fingerprint` when given.
 */
async function compared<R extends object>(
  ch: Clickhouse,
  range: queries.LinkRange,
  q: { period?: Period; compare?: Compare },
  report: { name: string; params: unknown },
  run: (r: queries.LinkRange) => Promise<R>,
  options: CompareOptions<R> & { fingerprint?: (w: Window) => Promise<string> } = {},
) {
  if (!q.compare) return run(range);
  const lengthMs = PERIODS[q.period ?? "30d"] * 1000;
  const window = rollingWindow(q.compare, range.fromMs, lengthMs, Date.now());
  const store = journeyStore(ch, range.accountId, [range.linkId], report.name, report.params);
  return withComparison(q.compare, window, lengthMs, (w, current) => run(current ? range : { ...range, ...w }), {
    ...options,
    // A report's own fingerprint replaces the store's, its combined read with the bundles' sums included.
    store: options.fingerprint ? { ...store, fingerprint: options.fingerprint, readWithFingerprint: undefined } : store,
  });
}

export async function getSummary(deps: ReportDeps, accountId: string, linkId: string, q: { period?: Period; compare?: Compare }) {
  const range = await resolveLinkRange(deps.db, accountId, linkId, q.period);
  // Another product's days before our own data (imports/plausible-query.ts), beside our counts, never
  // in them. The current window's summary reads how many the link has in its own statement, when it can.
  let importedDays: number | undefined;
  const summary = await compared(deps.ch, range, q, { name: "journey.summary", params: null }, async (r) => {
    if (r !== range) return queries.getJourneySummary(deps.ch, r);
    const both = await queries.getJourneySummaryAndImports(deps.ch, r);
    importedDays = both.importedDays;
    return both.summary;
  });
  const imported = await importedJourneyFigures(deps.ch, accountId, range.linkId, importedDays);
  return { ...summary, imported };
}

export async function listSessions(
  deps: ReportDeps,
  accountId: string,
  linkId: string,
  q: { period?: Period; page?: number; limit?: number; visitor_id?: string },
) {
  const range = await resolveLinkRange(deps.db, accountId, linkId, q.period);
  const page = { page: q.page ?? 1, limit: q.limit ?? 20 };
  const { items, total } = await listJourneySessions(deps.ch, range, page, q.visitor_id);
  return { items, meta: { page: page.page, per_page: page.limit, total } } satisfies Page<(typeof items)[number]>;
}

export async function listEvents(
  deps: ReportDeps,
  accountId: string,
  linkId: string,
  q: { period?: Period; page?: number; limit?: number; event_type?: string; session_id?: string },
) {
  const range = await resolveLinkRange(deps.db, accountId, linkId, q.period);
  const page = { page: q.page ?? 1, limit: q.limit ?? 50 };
  const { items, total } = await queries.listJourneyEvents(deps.ch, range, page, { eventType: q.event_type, sessionId: q.session_id });
  return { items, meta: { page: page.page, per_page: page.limit, total } } satisfies Page<(typeof items)[number]>;
}

/** Splits `steps` (comma-separated); 400 when empty or too many. */
export function parseSteps(raw: string): string[] {
  const steps = raw.split(",").map((s) => s.trim());
  if (steps.some((s) => s.length === 0)) throw validationError("query.steps", "must be comma-separated, non-empty step names");
  if (steps.length > MAX_FUNNEL_STEPS) throw validationError("query.steps", `at most ${MAX_FUNNEL_STEPS} steps`);
  return steps;
}

export async function getFunnel(
  deps: ReportDeps,
  accountId: string,
  linkId: string,
  q: { period?: Period; steps: string; compare?: Compare },
) {
  const steps = parseSteps(q.steps);
  const range = await resolveLinkRange(deps.db, accountId, linkId, q.period);
  const report = { name: "journey.funnel", params: { steps, period: q.period ?? "30d" } };
  return compared(deps.ch, range, q, report, (r) => funnelOf(deps, r, steps, q.period), {
    figures: funnelFigures,
    fingerprint: (w) => funnelWindowFingerprint(deps.ch, accountId, range.linkId, w),
  });
}

const funnelFigures = (f: { total_visitors: number; steps: { visitors: number }[] }) => ({
  total_visitors: f.total_visitors,
  ...Object.fromEntries(f.steps.map((s, i) => [`step_${i + 1}`, s.visitors])),
});

async function funnelOf(deps: ReportDeps, range: queries.LinkRange, steps: string[], period?: Period) {
  const { reached, totalVisitors } = await queries.getJourneyFunnel(deps.ch, range, steps, PERIODS[period ?? "30d"]);
  return {
    steps: steps.map((step_name, i) => ({
      step_name,
      visitors: reached[i],
      conversion_rate: i === 0 ? 100.0 : percent(reached[i], reached[i - 1]),
    })),
    total_visitors: totalVisitors,
  };
}
