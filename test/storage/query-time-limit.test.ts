// The time limit of report queries on the embedded chDB: ClickHouse's own max_execution_time, sent
// with each query (never left on chDB's shared session), stops a long query at the limit.
import { expect, test } from "bun:test";
import { tmpdir } from "node:os";
import { openClickhouse, withTimeLimit } from "../../server/storage/clickhouse/client";
import { QueryTimeoutError } from "../../server/storage/failures";
import { sharedChdb } from "../helpers/stores";

const open = async (queryTimeoutMs: number) =>
  openClickhouse({
    database: "system",
    dataDir: tmpdir(),
    sharedClient: await sharedChdb(),
    migrationLock: async <T>() => undefined as T,
    queryTimeoutMs,
  });

const LONG = "SELECT count() AS n FROM numbers(100000000000) WHERE sipHash64(number) % 7 = 3";

test("a query past the limit is stopped by the engine at the limit: QueryTimeoutError", async () => {
  const ch = await open(300);
  const started = performance.now();
  const err = await ch.query(LONG).catch((e) => e);
  const elapsed = performance.now() - started;
  expect(err).toBeInstanceOf(QueryTimeoutError);
  expect(err.cause.code).toBe("159"); // TIMEOUT_EXCEEDED, from the engine, not the client-side abort
  // ClickHouse times the query with a coarse clock (a few ms of resolution): 298.9 ms was measured here once.
  expect(elapsed).toBeGreaterThanOrEqual(290);
  expect(elapsed).toBeLessThan(2_000);
  // Each query carries its limit; one sent without a limit sees the session's own setting, unchanged.
  const [row] = await ch.query<{ m: string | number }>("SELECT getSetting('max_execution_time') AS m");
  expect(Number(row.m)).toBe(0.3);
  const none = await open(0);
  expect(Number((await none.query<{ m: string | number }>("SELECT getSetting('max_execution_time') AS m"))[0].m)).toBe(0);
});

test("a query within the limit answers as before, its own SETTINGS kept", async () => {
  const ch = await open(5_000);
  const rows = await ch.query<{ n: string | number }>("SELECT count() AS n FROM numbers(1000) SETTINGS max_threads = 1");
  expect(Number(rows[0].n)).toBe(1000);
  expect(withTimeLimit("SELECT 1 SETTINGS max_threads = 1", 5_000)).toBe("SELECT 1 SETTINGS max_threads = 1, max_execution_time = 5");
  expect(withTimeLimit("SELECT x FROM (SELECT 1 AS x SETTINGS max_threads = 1)", 250)).toBe(
    "SELECT x FROM (SELECT 1 AS x SETTINGS max_threads = 1)\nSETTINGS max_execution_time = 0.25",
  );
});

test("a background client's INSERT … SELECT is stopped at its limit by the engine; the reports' client runs commands as given", async () => {
  const ch = await open(0);
  const table = `system_null_${crypto.randomUUID().replaceAll("-", "")}`;
  await ch.command(`CREATE TABLE IF NOT EXISTS default.${table} (n UInt64) ENGINE = Null`);
  try {
    const job = ch.forBackground({ limitMs: 300 });
    const started = performance.now();
    const err = await job
      .command(`INSERT INTO default.${table} SELECT number FROM numbers(100000000000) WHERE sipHash64(number) % 7 = 3`)
      .catch((e) => e);
    const elapsed = performance.now() - started;
    expect(String(err?.code ?? err?.cause?.code ?? err)).toContain("159"); // TIMEOUT_EXCEEDED, from the engine
    expect(elapsed).toBeLessThan(5_000);
    // Other statements of a background client, and every command of a client without the flag, go as written.
    await job.command(`INSERT INTO default.${table} SELECT number FROM numbers(10)`);
    await ch.command(`OPTIMIZE TABLE system.one`).catch(() => {});
  } finally {
    await ch.command(`DROP TABLE IF EXISTS default.${table}`);
  }
});
