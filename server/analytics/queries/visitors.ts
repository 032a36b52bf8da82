// ClickHouse lookups of the click pipeline (flusher only, never the redirect path).
import type { Clickhouse } from "../../storage/clickhouse/client";

/** Which of these visitor hashes clicked, for these accounts, in [from, to). */
export async function findSeenVisitorHashes(
  ch: Clickhouse,
  a: { accountIds: string[]; hashes: string[]; from: number; to: number },
): Promise<Set<string>> {
  if (a.hashes.length === 0) return new Set();
  const rows = await ch.query<{ seen: string }>(
    `SELECT DISTINCT toString(visitor_hash) AS seen FROM ${ch.table("clicks")}
     WHERE account_id IN {accounts:Array(UUID)}
       AND timestamp >= fromUnixTimestamp64Milli({from:Int64}, 'UTC') AND timestamp < fromUnixTimestamp64Milli({to:Int64}, 'UTC')
       AND visitor_hash IN arrayMap(h -> toUInt64(h), {hashes:Array(String)})`,
    { accounts: a.accountIds, hashes: a.hashes, from: a.from, to: a.to },
  );
  return new Set(rows.map((r) => r.seen));
}
