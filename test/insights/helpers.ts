// Shared by the insight tests: a seeded random source and the merge switches of every MergeTree table.
import type { ClickhouseTable } from "../../server/storage/clickhouse/tables";
import type { TestApp } from "../helpers/app";

/** mulberry32: the same numbers for the same seed. */
export function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

async function mergeTreeTables(t: TestApp) {
  const ch = t.runtime.deps.ch;
  const rows = await ch.query<{ name: ClickhouseTable }>(
    "SELECT name FROM system.tables WHERE database = {db:String} AND engine LIKE '%MergeTree'",
    { db: ch.database },
  );
  return rows.map((r) => ch.table(r.name));
}

/** Keeps every insert in its own part, as ClickHouse may leave them. */
export async function stopMerges(t: TestApp) {
  for (const table of await mergeTreeTables(t)) await t.runtime.deps.ch.command(`SYSTEM STOP MERGES ${table}`);
}

/** Merges every table fully (OPTIMIZE … FINAL). */
export async function forceMerges(t: TestApp) {
  for (const table of await mergeTreeTables(t)) {
    await t.runtime.deps.ch.command(`SYSTEM START MERGES ${table}`);
    await t.runtime.deps.ch.command(`OPTIMIZE TABLE ${table} FINAL`);
  }
}
