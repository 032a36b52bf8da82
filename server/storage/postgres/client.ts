// Opens Postgres: Bun's SQL client when DATABASE_URL is set, embedded PGlite under DATA_DIR/pg otherwise.
import { existsSync, mkdirSync } from "node:fs";
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
  /**
   * Every channel shares one listening connection, so notifications arrive in the order their
   * transactions committed, across channels. `onRelisten` runs each time the channel is listened to
   * again after that connection was lost: notifications sent meanwhile were not received.
   */
  listen(channel: string, onPayload: (payload: string) => void, onRelisten?: () => void): Promise<void>;
  notify(channel: string, payload: string): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
  /** Embedded PGlite: the bytes of its WebAssembly memory (its high-water mark: it never shrinks). */
  memoryBytes?(): number;
}

const rowsOf = <T>(result: unknown): T[] => (Array.isArray(result) ? result : ((result as { rows?: T[] }).rows ?? [])) as T[];

export async function openPostgres(opts: { databaseUrl?: string; dataDir: string }): Promise<Postgres> {
  const pg = opts.databaseUrl ? await openServer(opts.databaseUrl) : await openEmbedded(join(opts.dataDir, "pg"));
  await applyMigrations(pg);
  return pg;
}

/** The driver-specific pieces; everything else is the same for both drivers. */
type Driver = Pick<Postgres, "kind" | "listen" | "notify" | "ping" | "close" | "memoryBytes">;

function wrap(db: Db, driver: Driver): Postgres {
  return { db, query: async <T>(q: SQL, on: DbOrTx = db) => rowsOf<T>(await on.execute(q)), ...driver };
}

/**
 * A Postgres server through Bun's own client (Bun.SQL), which writes a query from native code: postgres.js
 * sends small writes from a setImmediate, and a query waited, half-sent, for as long as Bun held that
 * immediate back (docs/operations.md, "Postgres server connections"). Named prepared
 * statements (Bun's default): Bun then knows each parameter's type, so a string bound to a jsonb
 * parameter is stored as a JSON string; JSON text goes in as `${text}::text::jsonb`, and jsonb columns
 * hand drizzle the value itself (schema.ts).
 */
async function openServer(url: string): Promise<Postgres> {
  const { SQL } = await import("bun");
  const { drizzle } = await import("drizzle-orm/bun-sql");
  const client = new SQL({ url, max: 10 });
  return wrap(drizzle({ client, schema }) as unknown as Db, {
    kind: "postgres",
    listen: async (channel, onPayload, onRelisten) => {
      let listened = false;
      await client.listen(channel, onPayload, () => {
        if (listened) onRelisten?.();
        listened = true;
      });
    },
    notify: async (channel, payload) => {
      await client.notify(channel, payload);
    },
    ping: async () => {
      await client`select 1`;
    },
    close: () => client.close({ timeout: 5 }),
  });
}

/**
 * Settings of the embedded Postgres (docs/operations.md "Memory"). Its WebAssembly memory only grows, and
 * its defaults are a server's: 128 MB of shared buffers and 100 connections' shared state, which PGlite
 * (one connection, the data files in the OS's page cache anyway) holds for nothing. 16 MB of buffers
 * and 10 connections open it at ~140 MB resident instead of ~270.
 */
export const PGLITE_CONF = ["shared_buffers = 16MB", "max_connections = 10"];

async function openEmbedded(dir: string): Promise<Postgres> {
  mkdirSync(dir, { recursive: true });
  const { PGlite } = await import("@electric-sql/pglite");
  const { pg_trgm } = await import("@electric-sql/pglite/contrib/pg_trgm");
  const { drizzle } = await import("drizzle-orm/pglite");
  const initdb = !existsSync(join(dir, "PG_VERSION"));
  const client = await PGlite.create(dir, { extensions: { pg_trgm }, postgresqlconf: PGLITE_CONF });
  // A first start ran initdb in a WebAssembly instance of its own: collected now, not at some later pause
  // (~280 MB less resident after a first start).
  if (initdb) Bun.gc(true);
  const wasm = client as unknown as { mod?: { HEAPU8?: Uint8Array } };
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
    memoryBytes: () => wasm.mod?.HEAPU8?.byteLength ?? 0,
  });
}

export { sql };
