// The compared window's answer, kept once computed (compare.ts, migration 0290). A compared window lies
// wholly in the past, so its answer can change only when its source rows do (late events, an erasure):
// each read checks the stored answer's fingerprint of those rows against a fresh one (a cheap count and
// sums, compared-windows-query.ts) and computes the answer again, exactly, when they differ. The store is
// in ClickHouse, shared by every instance; writers at once store the same answer, readers take the latest.
import { createHash } from "node:crypto";
import type { Clickhouse } from "../storage/clickhouse/client";
import type { Window } from "./compare";
import { bundlesFingerprint, readComparedWindow, readWithBundlesFingerprint, storeComparedWindow } from "./compared-windows-query";

/** Part of every key: a version whose answers differ in shape or meaning stores under keys of its own. */
const STORE_VERSION = 1;

export interface ComparedStore {
  ch: Clickhouse;
  accountId: string;
  /** The report's name, e.g. "journey.funnel". */
  report: string;
  /** Everything the answer depends on besides the account and the window: the scope's link ids, the parameters. */
  params: unknown;
  /** A cheap fingerprint of the rows the window's answer is computed from, read before computing it. */
  fingerprint: (w: Window) => Promise<string>;
  /** The fingerprint and the stored answer under `key` in one read, where the store can. */
  readWithFingerprint?: (w: Window, key: string) => Promise<{ fingerprint: string; stored?: { fingerprint: string; answer: string } }>;
}

/** The stored answer of `w` when its fingerprint still holds; otherwise `compute()`, stored. */
export async function storedAnswer<R>(store: ComparedStore, w: Window, compute: () => Promise<R>): Promise<R> {
  const key = createHash("sha256")
    .update(JSON.stringify([STORE_VERSION, store.report, store.params, w.fromMs, w.toMs]))
    .digest("hex");
  // A store that cannot be read (no grant on the table, a failure) leaves the answer computed, exactly.
  const [stored, fingerprint] = await (store.readWithFingerprint
    ? store.readWithFingerprint(w, key).then(
        (x) => [x.stored, x.fingerprint] as const,
        // The store's table cannot be read (no grant): the fingerprint alone, as below.
        async () => [undefined, await store.fingerprint(w).catch(() => null)] as const,
      )
    : Promise.all([
        readComparedWindow(store.ch, store.accountId, store.report, key).catch(() => undefined),
        store.fingerprint(w).catch(() => null),
      ]));
  if (fingerprint === null) return compute();
  if (stored && stored.fingerprint === fingerprint) return JSON.parse(stored.answer) as R;
  // The fingerprint was read first: rows added while computing make the next read compute again.
  const answer = await compute();
  const row = { accountId: store.accountId, report: store.report, key, fingerprint, answer: JSON.stringify(answer) };
  // A store that cannot be written (a read-only ClickHouse user) leaves every answer exact, computed each call.
  await storeComparedWindow(store.ch, row).catch(() => {});
  return answer;
}

/**
 * A store for a report over the journey events of the account (or of `linkIds`) in its window, fingerprinted
 * by the event bundles that can hold them. Not for a report that reads events before its window (time to
 * convert, retention): their fingerprint would have to cover the scope's whole history.
 */
export const journeyStore = (
  ch: Clickhouse,
  accountId: string,
  linkIds: readonly string[] | undefined,
  report: string,
  params: unknown,
): ComparedStore => ({
  ch,
  accountId,
  report,
  params: [linkIds ? [...linkIds].sort() : null, params],
  fingerprint: (w) => bundlesFingerprint(ch, accountId, linkIds, w),
  readWithFingerprint: (w, key) => readWithBundlesFingerprint(ch, accountId, linkIds, w, report, key),
});
