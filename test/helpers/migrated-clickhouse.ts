// A ClickHouse database of a test's own on the shared chDB, migrated only up to a given migration, so an
// upgrade test can store rows as an older version did and then run the migrations it is about.
import { afterAll, beforeAll } from "bun:test";
import { tmpdir } from "node:os";
import { openClickhouse, type Clickhouse } from "../../server/storage/clickhouse/client";
import { readClickhouseMigrations } from "../../server/storage/clickhouse/migrate";
import { sharedChdb } from "./stores";

/** Runs every migration before `version` in beforeAll (and drops the database in afterAll). */
export function useClickhouseBefore(version: number) {
  const database = `t_mig${version}_${crypto.randomUUID().replaceAll("-", "").slice(0, 10)}`;
  const t = {} as { ch: Clickhouse; apply: (version: number) => Promise<void>; applyAfter: (version: number) => Promise<void> };
  const run = async (keep: (v: number) => boolean) => {
    for (const m of readClickhouseMigrations(t.ch)) if (keep(m.version)) for (const s of m.statements) await t.ch.command(s);
  };
  t.apply = (v) => run((m) => m === v);
  /** Every migration after `v`: the schema the current code's reports read. */
  t.applyAfter = (v) => run((m) => m > v);
  beforeAll(async () => {
    // The lock is where the migrations would run on open: skipping it leaves them to this helper.
    const skip = async <T>() => undefined as T;
    t.ch = await openClickhouse({ database, dataDir: tmpdir(), sharedClient: await sharedChdb(), migrationLock: skip });
    await t.ch.command(`CREATE DATABASE ${database}`);
    await run((m) => m < version);
  }, 60_000);
  afterAll(() => t.ch.command(`DROP DATABASE ${database}`));
  return t;
}
