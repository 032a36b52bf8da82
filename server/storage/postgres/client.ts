// Opens Postgres: postgres.js when DATABASE_URL is set, embedded PGlite under DATA_DIR/pg otherwise.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { sql, type SQL } from "drizzle-orm";
import type { PgDatabase } from "drizzle-orm/pg-core";
import * as schema from "./schema";
import { applyMigrations } from "./migrate";

export type Db = PgDatabase<any, typeof schema>;
/** A transaction handle has the same query surface as the database. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
export type DbOrTx = Db | Tx;

export interface Postgres {
  db: Db;
  kind: "postgres" | "pglite";
  /** Runs raw SQL (bound parameters through drizzle's sql template) and returns plain rows. */
  query<T = Record<string, unknown>>(query: SQL, on?: DbOrTx): Promise<T[]>;
  listen(channel: string, onPayload: (payload: string) => void): Promise<void>;
  /**
   * On a server, resolves once this process's own listener on the channel (if any) has received the
   * payload back: Postgres hands a notification to every listener at once, so by then every other
   * instance has been sent it too, and a change answered after its invalidation is refused elsewhere at once.
   */
  notify(channel: string, payload: string): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

const ECHO_WAIT_MS = 1_000;

const rowsOf = <T>(result: unknown): T[] => (Array.isArray(result) ? result : ((result as { rows?: T[] }).rows ?? [])) as T[];

export async function openPostgres(opts: { databaseUrl?: string; dataDir: string }): Promise<Postgres> {
  const pg = opts.databaseUrl ? await openServer(opts.databaseUrl) : await openEmbedded(join(opts.dataDir, "pg"));
  await applyMigrations(pg);
  return pg;
}

/** The driver-specific pieces; everything else is the same for both drivers. */
type Driver = Pick<Postgres, "kind" | "listen" | "notify" | "ping" | "close">;

function wrap(db: Db, driver: Driver): Postgres {
  return { db, query: async <T>(q: SQL, on: DbOrTx = db) => rowsOf<T>(await on.execute(q)), ...driver };
}

async function openServer(url: string): Promise<Postgres> {
  const { default: postgres } = await import("postgres");
  const { drizzle } = await import("drizzle-orm/postgres-js");
  const client = postgres(url, { max: 10, onnotice: () => {} });
  const listening = new Set<string>();
  const echoes = new Map<string, (() => void)[]>(); // channel + payload → waiting notifiers
  const echoKey = (channel: string, payload: string) => `${channel}\n${payload}`;
  return wrap(drizzle(client, { schema }) as unknown as Db, {
    kind: "postgres",
    listen: async (channel, onPayload) => {
      await client.listen(channel, (payload) => {
        onPayload(payload);
        const key = echoKey(channel, payload);
        for (const resolve of echoes.get(key) ?? []) resolve();
        echoes.delete(key);
      });
      listening.add(channel);
    },
    notify: async (channel, payload) => {
      if (!listening.has(channel)) return void (await client.notify(channel, payload));
      const key = echoKey(channel, payload);
      let resolve!: () => void;
      const echoed = new Promise<void>((r) => (resolve = r));
      echoes.set(key, [...(echoes.get(key) ?? []), resolve]);
      await client.notify(channel, payload);
      // Bounded: a listener connection that is reconnecting must not hold up the change.
      await Promise.race([echoed, Bun.sleep(ECHO_WAIT_MS)]);
      const waiting = echoes.get(key)?.filter((r) => r !== resolve);
      if (waiting?.length) echoes.set(key, waiting);
      else echoes.delete(key);
    },
    ping: async () => {
      await client`select 1`;
    },
    close: () => client.end({ timeout: 5 }),
  });
}

async function openEmbedded(dir: string): Promise<Postgres> {
  mkdirSync(dir, { recursive: true });
  const { PGlite } = await import("@electric-sql/pglite");
  const { pg_trgm } = await import("@electric-sql/pglite/contrib/pg_trgm");
  const { drizzle } = await import("drizzle-orm/pglite");
  const client = await PGlite.create(dir, { extensions: { pg_trgm } });
  return wrap(drizzle(client, { schema }) as unknown as Db, {
    kind: "pglite",
    listen: async (channel, onPayload) => {
      await client.listen(channel, onPayload);
    },
    notify: async (channel, payload) => {
      await client.query("select pg_notify($1, $2)", [channel, payload]);
    },
    ping: async () => {
      await client.query("select 1");
    },
    close: () => client.close(),
  });
}

export { sql };
