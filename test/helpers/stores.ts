// Real stores for tests, isolated per test app without paying initdb each time:
// - Postgres: a migrated PGlite directory made once per process and copied per app, or, when CI sets
//   SVC_TEST_DATABASE_URL (the server passes), a fresh database per app on that server.
// - ClickHouse: one chDB per process (chDB binds one directory per process), or, when CI sets
//   SVC_TEST_CLICKHOUSE_URL (the servers pass: the stand-in of test/support/clickhouse-http.ts, or any
//   ClickHouse server), that server over HTTP; either way a fresh database per app.
// - Redis: in process, or, when CI sets SVC_TEST_REDIS_URL, a Redis database of its own per app (emptied
//   first), so that per-address windows such as password attempts do not add up across test files.
import { cpSync, existsSync } from "node:fs";
import { processTempDir } from "./temp-dirs";
import { join } from "node:path";
import { RedisClient } from "bun";
import { createClient, type ClickHouseClient } from "@clickhouse/client";
import { openPostgres } from "../../server/storage/postgres/client";

export const testDatabaseUrl = process.env.SVC_TEST_DATABASE_URL || undefined;
export const testClickhouseUrl = process.env.SVC_TEST_CLICKHOUSE_URL || undefined;
export const testRedisUrl = process.env.SVC_TEST_REDIS_URL || undefined;

export const freshClickhouseDatabase = () => `t_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;

let redisDatabases: { count: number; next: number } | undefined;
/** With SVC_TEST_REDIS_URL: the URL of a Redis database no other test app of this process uses, emptied. */
export async function freshRedisUrl(): Promise<string | undefined> {
  if (!testRedisUrl) return undefined;
  if (!redisDatabases) {
    const admin = new RedisClient(testRedisUrl);
    const reply = (await admin.send("CONFIG", ["GET", "databases"]).catch(() => null)) as string[] | Record<string, string> | null;
    admin.close();
    const count = Number((Array.isArray(reply) ? reply[1] : reply?.databases) ?? 16);
    // Database 0 stays free for whoever else uses the server; a random start keeps two processes apart.
    redisDatabases = { count, next: 1 + Math.floor(Math.random() * (count - 1)) };
  }
  const url = new URL(testRedisUrl);
  url.pathname = `/${redisDatabases.next}`;
  redisDatabases.next = 1 + (redisDatabases.next % (redisDatabases.count - 1));
  const client = new RedisClient(url.toString());
  await client.send("FLUSHDB", []);
  client.close();
  return url.toString();
}

/**
 * The variables a service started as a child process needs for this pass's stores: DATABASE_URL when
 * preparePostgres gave one, ClickHouse over HTTP in a fresh database, and Redis, but only beside a Postgres
 * server (REDIS_URL next to embedded Postgres is the shape of several instances each with its own data).
 * Empty in the embedded pass.
 */
export async function sharedStoresEnv(databaseUrl?: string): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  if (testClickhouseUrl) Object.assign(env, { CLICKHOUSE_URL: testClickhouseUrl, CLICKHOUSE_DATABASE: freshClickhouseDatabase() });
  const redisUrl = databaseUrl ? await freshRedisUrl() : undefined;
  // With REDIS_URL the service takes itself for one of several instances and needs APP_SECRET set.
  if (redisUrl) Object.assign(env, { REDIS_URL: redisUrl, APP_SECRET: "test-app-secret-0123456789abcdef0123" });
  return env;
}

export { childEnv } from "./child-env";

let chdb: Promise<ClickHouseClient> | undefined;
/** One chDB per process; the promise is cached so parallel callers share it. */
export function sharedChdb(): Promise<ClickHouseClient> {
  chdb ??= import("chdb/connection").then(({ createChdbConnection }) =>
    createClient({ connection: createChdbConnection({ path: processTempDir("svc-chdb-") }) } as never),
  );
  return chdb;
}

let template: Promise<string> | undefined;
function pgliteTemplate(): Promise<string> {
  template ??= (async () => {
    const dir = processTempDir("svc-pg-template-");
    const pg = await openPostgres({ dataDir: dir });
    await pg.close();
    return join(dir, "pg");
  })();
  return template;
}

/** A new, empty database on a Postgres server; returns its URL. */
export async function freshServerDatabase(serverUrl: string, prefix: string): Promise<string> {
  const { default: postgres } = await import("postgres");
  const name = `${prefix}_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Prepares DATA_DIR's Postgres and returns the DATABASE_URL to use (undefined: embedded PGlite). */
export async function preparePostgres(dataDir: string): Promise<string | undefined> {
  if (testDatabaseUrl) return freshServerDatabase(testDatabaseUrl, "svc_test");
  const target = join(dataDir, "pg");
  if (!existsSync(target)) cpSync(await pgliteTemplate(), target, { recursive: true });
  return undefined;
}
