// ClickHouse through @clickhouse/client: HTTP when CLICKHOUSE_URL is set, embedded chDB otherwise.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { createClient, type ClickHouseClient, type ClickHouseSettings } from "@clickhouse/client";
import { applyClickhouseMigrations } from "./migrate";
import { CLUSTER_SETTINGS } from "./cluster-ddl";
import type { ClickhouseTable } from "./tables";
import { QueryTimeoutError, StoreUnavailableError } from "../failures";

export interface ClickhouseOptions {
  url?: string;
  user?: string;
  password?: string;
  database: string;
  cluster?: string;
  dataDir: string;
  /** An already open client (tests share one chDB per process); it is not closed by this wrapper. */
  sharedClient?: ClickHouseClient;
  /** Serializes the migrations of instances starting at once (runtime.ts holds a Postgres advisory lock). */
  migrationLock?: <T>(fn: () => Promise<T>) => Promise<T>;
  /** The time limit of every SELECT through `query` (the reports), in ms; 0 or unset: none. */
  queryTimeoutMs?: number;
}

/** A client for work that no caller waits for (the background jobs): its own time limit, and a stop. */
export interface BackgroundQueries {
  /** The time limit of its `query` calls, ms; 0: none. */
  limitMs: number;
  /** Aborted at shutdown: a query in progress is given up (and the job's round with it). */
  signal?: AbortSignal;
}

export interface Clickhouse {
  client: ClickHouseClient;
  kind: "http" | "chdb";
  database: string;
  cluster?: string;
  /** Fully qualified table name; database names are validated identifiers from config. */
  table(name: ClickhouseTable): string;
  /**
   * SELECT with `{name:Type}` bound parameters; returns rows as objects. Runs under the time limit
   * (QueryTimeoutError past it); an unreachable server is a StoreUnavailableError.
   */
  query<T = Record<string, unknown>>(query: string, params?: Record<string, unknown>): Promise<T[]>;
  command(query: string, params?: Record<string, unknown>): Promise<void>;
  insert(table: ClickhouseTable, rows: readonly object[], settings?: ClickHouseSettings): Promise<void>;
  /** Rows already in `format` text (e.g. JSONCompactEachRow), sent as they are; chDB parses the bytes natively. */
  insertRaw(
    table: ClickhouseTable,
    columns: readonly string[],
    format: "JSONCompactEachRow",
    data: Buffer,
    settings?: Record<string, string | number>,
  ): Promise<void>;
  ping(): Promise<void>;
  /**
   * The same store with another time limit for `query`: a background job's (CLICKHOUSE_JOB_QUERY_TIMEOUT_MS),
   * not the reports'. Over HTTP it has its own connection pool, whose request timeout follows the limit.
   * Closed with this one.
   */
  forBackground(opts: BackgroundQueries): Clickhouse;
  close(): Promise<void>;
  /** Embedded chDB: the bytes ClickHouse counts as its own (MemoryTracking: caches, inserts, merges). */
  memoryBytes?(): Promise<number>;
}

export async function openClickhouse(opts: ClickhouseOptions): Promise<Clickhouse> {
  const ch = opts.sharedClient
    ? { ...wrap(opts.sharedClient, "chdb", opts), close: async () => {} }
    : opts.url
      ? openHttp(opts)
      : await openChdb(opts);
  const lock = opts.migrationLock ?? ((fn) => fn());
  // Not a report: the migrations run without the reports' time limit.
  const migrations = ch.forBackground({ limitMs: 0 });
  try {
    await lock(() => applyClickhouseMigrations(migrations));
  } finally {
    if (migrations !== ch) await migrations.close();
  }
  return ch;
}

/**
 * Settings every insert sends to a ClickHouse server, whatever the server's defaults and profiles say:
 * - async_insert = 0: the rows are in the table before the answer, and deduplication follows
 *   insert_deduplication_token. An asynchronous insert (the default on some servers, ClickHouse Cloud's
 *   among them) deduplicates under async_insert_deduplicate instead, which the spool's chunk tokens do
 *   not drive, so a replay after a crash could store a chunk twice.
 * - wait_end_of_query = 1: the server answers once the insert has finished, so a failure arrives as an
 *   error status, never after a 200.
 * - insert_deduplicate = 1: a profile may turn deduplication off; replays depend on it.
 * The chunk's own token, block size and dependent-view deduplication come with each chunk's settings.
 */
export const SERVER_INSERT_SETTINGS = { async_insert: 0, wait_end_of_query: 1, insert_deduplicate: 1 } as const;

const HTTP_REQUEST_TIMEOUT_MS = 30_000;

function httpClient(opts: ClickhouseOptions, requestTimeoutMs: number) {
  return createClient({
    url: opts.url,
    username: opts.user,
    password: opts.password,
    request_timeout: requestTimeoutMs,
    clickhouse_settings: opts.cluster ? { ...CLUSTER_SETTINGS } : undefined,
    // Parameters past 4 KB go in a multipart body: proxies refuse long URLs (a server takes 1 MiB).
    use_multipart_params_auto: true,
  });
}

function openHttp(opts: ClickhouseOptions): Clickhouse {
  const ch = wrap(httpClient(opts, HTTP_REQUEST_TIMEOUT_MS), "http", opts);
  // A background query may run longer than the reports' pool lets a request wait: its own pool.
  const pools = new Set<ClickHouseClient>();
  return {
    ...ch,
    forBackground(bg) {
      const timeoutMs = bg.limitMs ? Math.max(HTTP_REQUEST_TIMEOUT_MS, bg.limitMs + ABORT_GRACE_MS) : 24 * 3_600_000;
      const client = httpClient(opts, timeoutMs);
      pools.add(client);
      const close = async () => {
        pools.delete(client);
        await client.close();
      };
      return { ...wrap(client, "http", { ...opts, queryTimeoutMs: bg.limitMs }, bg.signal, true), close };
    },
    async close() {
      await Promise.all([...pools].map((c) => c.close()));
      await ch.close();
    },
  };
}

/**
 * Server settings of the embedded ClickHouse (docs/operations.md "Memory"). Its caches are sized for a
 * server (a fraction of the machine's RAM: 5 GB each for marks, primary indexes and skip-index marks),
 * and fill as reports read parts; these bound them to what an instance of this size uses. They are
 * the process's: the first connection to the data directory starts the one embedded server with them.
 */
export const CHDB_SERVER_ARGS = [
  "--mark_cache_size=67108864",
  "--primary_index_cache_size=33554432",
  "--index_mark_cache_size=16777216",
  "--query_condition_cache_size=16777216",
  "--compiled_expression_cache_size=16777216",
];

async function openChdb(opts: ClickhouseOptions): Promise<Clickhouse> {
  const path = join(opts.dataDir, "clickhouse");
  mkdirSync(path, { recursive: true });
  const { Session } = await import("chdb");
  // Opened first so that the embedded server starts with our settings; kept open with the client.
  const settings = new Session(path, { connectionArgs: CHDB_SERVER_ARGS });
  const { createChdbConnection } = await import("chdb/connection");
  const client = createClient({ connection: createChdbConnection({ path }) } as never);
  const ch = wrap(client, "chdb", opts);
  return {
    ...ch,
    close: async () => {
      await ch.close();
      settings.close();
    },
    memoryBytes: async () => {
      const rows = await ch.query<{ value: string }>("SELECT value FROM system.metrics WHERE metric = 'MemoryTracking'");
      return Number(rows[0]?.value ?? 0);
    },
  };
}

const ABORT_GRACE_MS = 2_000;

/** ClickHouse error codes: TIMEOUT_EXCEEDED, TOO_SLOW (the estimate says it will not finish in time). */
const TIMEOUT_CODES = new Set(["159", "160"]);
/** TOO_MANY_SIMULTANEOUS_QUERIES, SOCKET_TIMEOUT, NETWORK_ERROR, ALL_CONNECTION_TRIES_FAILED. */
const BUSY_OR_UNREACHABLE_CODES = new Set(["202", "209", "210", "279"]);

/** A ClickHouse server error carries its numeric code as a string; transport errors do not. */
const serverCodeOf = (err: unknown) => {
  const code = (err as { code?: unknown })?.code;
  return typeof code === "string" && /^[0-9]+$/.test(code) ? code : undefined;
};
const isClickhouseTimeout = (err: unknown) => TIMEOUT_CODES.has(serverCodeOf(err) ?? "");

/**
 * The limit as a trailing SETTINGS clause: per query on both connections (chDB's connection would SET
 * `clickhouse_settings` on its shared session for good). A query that already ends with SETTINGS gets
 * the setting added to its list.
 */
export function withTimeLimit(query: string, limitMs: number): string {
  const setting = `max_execution_time = ${limitMs / 1000}`;
  return /\bSETTINGS\b[^)]*$/.test(query) ? `${query}, ${setting}` : `${query}\nSETTINGS ${setting}`;
}

async function runQuery<T>(
  client: ClickHouseClient,
  kind: Clickhouse["kind"],
  query: string,
  params: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<T[]> {
  try {
    const result = await client.query({ query, query_params: params, format: "JSONEachRow", abort_signal: signal });
    return (await result.json()) as T[];
  } catch (err) {
    if (signal?.aborted) throw err;
    const code = serverCodeOf(err);
    // Over HTTP an error without a server code is the transport's: refused, reset, no answer.
    if ((code && BUSY_OR_UNREACHABLE_CODES.has(code)) || (kind === "http" && !code)) {
      throw new StoreUnavailableError("clickhouse", { cause: err });
    }
    throw err;
  }
}

/** chDB's zero-copy insert of raw bytes, reached through the client's connection (not in its public types). */
interface ChdbRawInsert {
  rawInsert(p: {
    table: string;
    columns?: readonly string[];
    format: string;
    values: Buffer;
    settings?: Record<string, string | number>;
  }): Promise<unknown>;
}

function wrap(
  client: ClickHouseClient,
  kind: Clickhouse["kind"],
  opts: ClickhouseOptions,
  stop?: AbortSignal,
  background = false,
): Clickhouse {
  const db = opts.database;
  const chdb = (client as unknown as { connection?: { chdb?: ChdbRawInsert } }).connection?.chdb;
  return {
    client,
    kind,
    database: db,
    cluster: opts.cluster,
    table: (name) => `${db}.${name}`,
    async query<T>(query: string, params: Record<string, unknown> = {}) {
      stop?.throwIfAborted();
      const limitMs = opts.queryTimeoutMs ?? 0;
      if (!limitMs) return runQuery<T>(client, kind, query, params, stop);
      // The server stops the query at the limit; the abort, a little later, frees the caller even when
      // the server does not answer at all (chDB's computation stops at the limit on its own).
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(), limitMs + ABORT_GRACE_MS);
      try {
        const signal = stop ? AbortSignal.any([abort.signal, stop]) : abort.signal;
        return await runQuery<T>(client, kind, withTimeLimit(query, limitMs), params, signal);
      } catch (err) {
        if (stop?.aborted) throw err;
        if (abort.signal.aborted || isClickhouseTimeout(err)) throw new QueryTimeoutError("clickhouse", limitMs, { cause: err });
        throw err;
      } finally {
        clearTimeout(timer);
      }
    },
    async command(query, params = {}) {
      stop?.throwIfAborted();
      // A background client's INSERT … SELECT (the jobs' stored state) runs under its limit too, in the
      // query text: the server stops it there rather than running on after the caller gave up.
      const limitMs = background ? (opts.queryTimeoutMs ?? 0) : 0;
      const limited = limitMs && /^\s*INSERT\b[\s\S]*\bSELECT\b/i.test(query) ? withTimeLimit(query, limitMs) : query;
      await client.command({ query: limited, query_params: params, abort_signal: stop });
    },
    async insert(table, rows, settings) {
      if (rows.length === 0) return;
      if (chdb) {
        // Through the SETTINGS clause: the connection's own insert would SET them on the shared session for good.
        const values = Buffer.from(rows.map((r) => JSON.stringify(r)).join("\n"));
        await chdb.rawInsert({
          table: `${db}.${table}`,
          format: "JSONEachRow",
          values,
          settings: settings as Record<string, string | number>,
        });
        return;
      }
      await client.insert({
        table: `${db}.${table}`,
        values: rows as object[],
        format: "JSONEachRow",
        clickhouse_settings: { ...settings, ...SERVER_INSERT_SETTINGS },
      });
    },
    async insertRaw(table, columns, format, data, settings) {
      if (chdb) {
        await chdb.rawInsert({ table: `${db}.${table}`, columns, format, values: data, settings });
        return;
      }
      const result = await client.exec({
        query: `INSERT INTO ${db}.${table} (${columns.join(", ")}) FORMAT ${format}`,
        values: Readable.from([data], { objectMode: false }),
        clickhouse_settings: { ...settings, ...SERVER_INSERT_SETTINGS } as ClickHouseSettings,
      });
      // Read to the end, so the connection goes back to the pool (destroying it made the client warn and reconnect).
      for await (const _ of result.stream);
    },
    async ping() {
      await client.query({ query: "SELECT 1", format: "JSONEachRow" }).then((r) => r.json());
    },
    forBackground: (bg) => ({ ...wrap(client, kind, { ...opts, queryTimeoutMs: bg.limitMs }, bg.signal, true), close: async () => {} }),
    close: () => client.close(),
  };
}
