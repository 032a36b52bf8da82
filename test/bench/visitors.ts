// `bun run bench visitors`: how far a sketch's unique-visitor figure can be from the true count, the
// measurement behind counting visitors exactly (docs/accuracy.md). Sets of n distinct visitor hashes,
// for n from 100 to 8 million, are split into 40 daily states with visitors on several days (a third of
// the rows repeat a visitor), merged as a report over those days merges them, and counted with the
// sketch the click reports read before migration 0222 (uniqCombined(14), migration 0100; also the
// journey reports' estimate beyond 100,000 visitors before) and with uniqCombined64(17), the precision
// that comes near 0.5% (not adopted for its cost and error). Printed per
// n: the mean and the largest relative error over the trials and how many trials were off by more
// than 0.5%. BENCH_TRIALS scales the number of trials (default 1: 40 for small sets, fewer for large).
import { createClient } from "@clickhouse/client";
import { createChdbConnection } from "chdb/connection";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { table } from "./lib-server";

const SCALE = Number(process.env.BENCH_TRIALS ?? 1);
const SIZES: [number, number][] = [
  [100, 40],
  [1_000, 40],
  [4_095, 40],
  [4_500, 40],
  [20_000, 40],
  [45_000, 40],
  [60_000, 40],
  [100_000, 40],
  [300_000, 30],
  [400_000, 30],
  [600_000, 20],
  [1_000_000, 10],
  [3_000_000, 5],
  [8_000_000, 3],
];
const SKETCHES = { "uniqCombined64(17)": "uniqCombined64", "uniqCombined(14)": "uniqCombined" } as const;
const PRECISION = { uniqCombined64: 17, uniqCombined: 14 } as const;

const dir = mkdtempSync(join(tmpdir(), "svc-bench-visitors-"));
const client = createClient({ connection: createChdbConnection({ path: dir }) } as never);
const query = async <T>(sql: string) => (await (await client.query({ query: sql, format: "JSONEachRow" })).json()) as T[];

const rows = [];
for (const [n, baseTrials] of SIZES) {
  const trials = Math.max(1, Math.round(baseTrials * SCALE));
  const row: Record<string, string | number> = { visitors: n.toLocaleString("en-US"), trials };
  for (const [label, fn] of Object.entries(SKETCHES)) {
    const k = PRECISION[fn];
    // One query per size: trial g's visitors are cityHash64(i, g) for i < n, spread over 40 days.
    const errors = await query<{ e: number }>(
      `SELECT (${fn}Merge(${k})(s) - ${n}) / ${n} AS e FROM (
        SELECT g, day, ${fn}State(${k})(cityHash64(i % ${n}, g)) AS s
        FROM (SELECT number % ${trials} AS g, intDiv(number, ${trials}) AS i, intDiv(i * 30, ${n}) AS day
              FROM numbers(${trials} * (${n} + intDiv(${n}, 3))))
        GROUP BY g, day)
      GROUP BY g`,
    );
    const abs = errors.map((r) => Math.abs(Number(r.e)));
    row[`${label} mean %`] = ((errors.reduce((a, r) => a + Number(r.e), 0) / trials) * 100).toFixed(3);
    row[`${label} largest %`] = (Math.max(...abs) * 100).toFixed(3);
    row[`${label} > 0.5%`] = `${abs.filter((e) => e > 0.005).length}/${trials}`;
  }
  rows.push(row);
}
table(rows);
await client.close();
rmSync(dir, { recursive: true, force: true });
