// Real stores for tests, isolated per test app without paying initdb each time:
// - Postgres: a migrated PGlite directory made once per process and copied per app, or, when CI sets
//   SVC_TEST_DATABASE_URL (the real Postgres server pass), a fresh database per app on that server.
// - ClickHouse: one chDB per process (chDB binds one directory per process), a fresh database per app.
import { cpSync, mkdtempSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient, type ClickHouseClient } from "@clickhouse/client";
import { openPostgres } from "../../server/storage/postgres/client";

export const testDatabaseUrl = process.env.SVC_TEST_DATABASE_URL || undefined;

let chdb: Promise<ClickHouseClient> | undefined;
/** One chDB per process; the promise is cached so parallel callers share it. */
export function sharedChdb(): Promise<ClickHouseClient> {
  chdb ??= import("chdb/connection").then(({ createChdbConnection }) =>
    createClient({ connection: createChdbConnection({ path: mkdtempSync(join(tmpdir(), "svc-chdb-")) }) } as never),
  );
  return chdb;
}

let template: Promise<string> | undefined;
function pgliteTemplate(): Promise<string> {
  template ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-pg-template-"));
    const pg = await openPostgres({ dataDir: dir });
    await pg.close();
    return join(dir, "pg");
  })();
  return template;
}

/** Prepares DATA_DIR's Postgres and returns the DATABASE_URL to use (undefined: embedded PGlite). */
export async function preparePostgres(dataDir: string): Promise<string | undefined> {
  if (testDatabaseUrl) {
    const { default: postgres } = await import("postgres");
    const name = `svc_test_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
    const admin = postgres(testDatabaseUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    await admin.end();
    const url = new URL(testDatabaseUrl);
    url.pathname = `/${name}`;
    return url.toString();
  }
  const target = join(dataDir, "pg");
  if (!existsSync(target)) cpSync(await pgliteTemplate(), target, { recursive: true });
  return undefined;
}
