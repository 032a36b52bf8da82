// Messages between the click flushers (main thread) and the flush worker they share.
import type { VisitorHashStore } from "./enrich/visitor-hash";

/** One runtime's view: its `clicks` table and enrichment settings (tests run many runtimes per process). */
export interface FlushContext {
  trustProxy: boolean;
  /** APP_SECRET, which keys the visitor hashes. */
  hashSecret: string;
  geoipCityDb?: string;
  /** Fully qualified `clicks` table. */
  table: string;
}

export interface WorkerInit {
  /** Embedded chDB: the worker inserts through its own session on this path, on its own (background) thread. */
  chdbPath?: string;
}

export type StoreMethod = keyof VisitorHashStore;
/** A store call's arguments, as the worker sends them. */
export type StoreArgs<M extends StoreMethod> = Parameters<VisitorHashStore[M]>;
/** A store call's result as it crosses the thread boundary: a Set travels as an array. */
export type StoreResult<M extends StoreMethod> = Wire<Awaited<ReturnType<VisitorHashStore[M]>>>;
type Wire<T> = T extends Set<infer U> ? U[] : T;
/** The worker's calls into the main thread's stores, typed once for both sides. */
export type StoreCall = { [M in StoreMethod]: { type: "call"; ctx: number; id: number; method: M; args: StoreArgs<M> } }[StoreMethod];

export type ToWorker =
  | { type: "init"; init: WorkerInit }
  | { type: "open"; ctx: number; context: FlushContext }
  | { type: "drop"; ctx: number }
  /** `catchUp`: the spool is over SPOOL_MAX_BYTES, so this chunk is stored at normal priority. */
  | { type: "flush"; ctx: number; id: number; bytes: Uint8Array; token: string; catchUp: boolean }
  | { type: "reply"; id: number; result?: unknown; error?: string };

export type FromWorker =
  | { type: "ready" }
  | StoreCall
  /** `lines`: the rows as JSONCompactEachRow, present when the main thread is to insert them. */
  /** `background`: the worker's thread was at background priority while it stored the chunk. */
  | { type: "flushed"; id: number; count: number; latest: [string, number][]; lines?: string; background: boolean }
  | { type: "failed"; id: number; error: string };
