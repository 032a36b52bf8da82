// The typed list of ClickHouse tables (server/storage/clickhouse/tables.ts) is what the migrations
// create: a migration that adds or drops a table must update the list, or `ch.table()` would refuse a
// real table's name or accept a dropped one.
import { expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openClickhouse } from "../../server/storage/clickhouse/client";
import { CLICKHOUSE_TABLES } from "../../server/storage/clickhouse/tables";
import { readClickhouseMigrations } from "../../server/storage/clickhouse/migrate";
import { freshClickhouseDatabase, sharedChdb } from "../helpers/stores";

test("CLICKHOUSE_TABLES lists exactly the tables and views the migrations create", async () => {
  const ch = await openClickhouse({
    database: freshClickhouseDatabase(),
    dataDir: mkdtempSync(join(tmpdir(), "svc-ch-tables-")),
    sharedClient: await sharedChdb(),
  });
  try {
    const rows = await ch.query<{ name: string }>("SELECT name FROM system.tables WHERE database = {db:String}", { db: ch.database });
    expect(rows.map((r) => r.name).sort()).toEqual([...CLICKHOUSE_TABLES].sort());
    expect(new Set(CLICKHOUSE_TABLES).size).toBe(CLICKHOUSE_TABLES.length);
  } finally {
    await ch.command(`DROP DATABASE IF EXISTS ${ch.database}`);
    await ch.close();
  }
});

// A view changed by ALTER TABLE … MODIFY QUERY names the blocks it inserts differently in the process that
// changed it than after a restart, so a spool chunk inserted by that process and replayed after kill -9 by
// the next one was not recognised as a duplicate and was counted twice in the view's rollup (seen with
// test/links/redirect-crash.test.ts). Migrations drop and re-create a view instead.
test("no migration changes a materialized view in place (MODIFY QUERY)", () => {
  const statements = readClickhouseMigrations({ database: "svc", cluster: undefined }).flatMap((m) => m.statements);
  expect(statements.length).toBeGreaterThan(50);
  expect(statements.filter((s) => /\bMODIFY\s+QUERY\b/i.test(s))).toEqual([]);
});
