// The fingerprint of the funnel's compared window (reports/compared-store.ts), cheaper than the sums of
// bundlesFingerprint (compared-windows-query.ts), which read two columns of every bundle of the window
// (~25 ms CPU of the ~70 a compared funnel cost on the 10-million-event bench): the count of the bundles that
// can hold its events, answered from the primary key, and the mutations of the bundles table. Bundle rows
// are only added (a late event; merges and replayed chunks add none) or removed by a mutation (an erasure:
// ALTER … DELETE or a lightweight DELETE, each a row of system.mutations, whose set and progress are part of
// the fingerprint), so an unchanged fingerprint means unchanged rows, also after an erasure and late events
// of as many rows. A store that cannot read system.mutations fails the fingerprint: the window is computed.
import type { Clickhouse } from "../storage/clickhouse/client";
import { mutationMarkParams, mutationMarkSql } from "../storage/clickhouse/mutations";
import type { Window } from "../reports/compare";
import { DAY_MS } from "../reports/period";

export async function funnelWindowFingerprint(ch: Clickhouse, accountId: string, linkId: string, w: Window) {
  const [row] = await ch.query<{ n: string; mutations: string }>(
    `
    SELECT
      (SELECT count() FROM ${ch.table("journey_event_bundles")}
        WHERE account_id = {account:UUID} AND link_id = {link:UUID}
          AND ended >= fromUnixTimestamp64Milli({from:Int64}, 'UTC') AND ended < fromUnixTimestamp64Milli({end:Int64}, 'UTC')) AS n,
      ${mutationMarkSql(["journey_event_bundles"])} AS mutations`,
    { account: accountId, link: linkId, from: w.fromMs, end: w.toMs + DAY_MS, ...mutationMarkParams(ch) },
  );
  if (!row) throw new Error("no fingerprint");
  return `count:${row.n}:${row.mutations}`;
}
