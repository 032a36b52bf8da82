// The clicks spool's sink: chunks go to a worker thread at low CPU priority, which enriches them and
// (embedded chDB) inserts them; with a ClickHouse server the main thread sends the worker's rows.
// Either way the chunk's token deduplicates a replay, and links.last_accessed_at moves forward after.
//
// Why a worker: enrichment (user agent parsing, GeoIP, visitor hashes) and an embedded insert are CPU
// work; on the main thread they would take turns with the redirect. At a lower priority on its own
// thread, under saturation the redirect keeps the cores and clicks wait in the durable spool instead.
// Why two insert paths: embedded chDB binds one engine per process, and the worker inserts through its
// own session so that the insert's CPU is at its priority too; a ClickHouse server is a network call, so
// the worker hands back the rows as JSONCompactEachRow and the main thread's client sends them (the
// worker holds no connection settings). The worker reaches the main thread's stores (salts in
// Postgres, earlier hashes in ClickHouse) through the calls typed in protocol.ts.
import type { Clickhouse } from "../../storage/clickhouse/client";
import type { Postgres } from "../../storage/postgres/client";
import type { LineFormat, StreamEntry } from "../streams";
import { missingById } from "../repository";
import { touchLinksLastAccessed } from "../../links/repository";
import type { RawClick } from "./record";
import { visitorHashStore, type VisitorHashStore } from "./enrich/visitor-hash";
import { insertClickLines } from "./repository";
import { clickRecordBound, decodeClicks, encodeClick } from "./spool-record";
import type { FlushContext, FromWorker, StoreCall, ToWorker } from "./protocol";

export interface ClickFlusherDeps {
  ch: Clickhouse;
  pg: Postgres;
  trustProxy: boolean;
  /** APP_SECRET, which keys the visitor hashes. */
  hashSecret: string;
  geoipCityDb?: string;
}

export interface ClickFlusher {
  /** The clicks stream's entry for the spool (server/ingest/streams.ts). */
  stream: StreamEntry<RawClick> & LineFormat<RawClick>;
  /** Whether the last chunk was stored at background priority (null before the first); see worker.ts. */
  readonly storedInBackground: boolean | null;
  close(): Promise<void>;
}

interface Context {
  store: VisitorHashStore;
  deps: ClickFlusherDeps;
  context: FlushContext;
}
interface Pending {
  ctx: number;
  token: string;
  resolve: (count: number) => void;
  reject: (err: Error) => void;
}

/** One worker per process and ClickHouse (chDB binds one engine per process; its session must stay open). */
class FlushWorker {
  private worker: Worker | null = null;
  private ready: Promise<void> | null = null;
  private opened = new Set<number>();
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  readonly contexts = new Map<number, Context>();
  lastBackground: boolean | null = null;

  constructor(private readonly chdbPath: string | undefined) {}

  /** Started with the runtime, so the engine's threads are at the flusher's priority from the first request on. */
  ensureStarted(): Promise<void> {
    if (!this.ready) this.ready = this.start();
    return this.ready;
  }

  async flush(ctx: number, bytes: Uint8Array, token: string, catchUp: boolean): Promise<number> {
    await this.ensureStarted();
    const w = this.worker!;
    if (!this.opened.has(ctx)) {
      w.postMessage({ type: "open", ctx, context: this.contexts.get(ctx)!.context } satisfies ToWorker);
      this.opened.add(ctx);
    }
    const id = this.nextId++;
    const payload = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
    return new Promise<number>((resolve, reject) => {
      this.pending.set(id, { ctx, token, resolve, reject });
      w.postMessage({ type: "flush", ctx, id, bytes: payload, token, catchUp } satisfies ToWorker, [payload.buffer as ArrayBuffer]);
    });
  }

  drop(ctx: number) {
    this.contexts.delete(ctx);
    for (const [id, p] of this.pending)
      if (p.ctx === ctx) {
        this.pending.delete(id);
        p.reject(new Error("click flusher closed"));
      }
    if (this.opened.delete(ctx)) this.worker?.postMessage({ type: "drop", ctx } satisfies ToWorker);
  }

  private start(): Promise<void> {
    const w = new Worker(new URL("./worker.ts", import.meta.url).href);
    (w as unknown as { unref(): void }).unref(); // the process may exit while the worker idles
    this.worker = w;
    this.opened = new Set();
    return new Promise<void>((resolve, reject) => {
      w.onmessage = (event: MessageEvent<FromWorker>) => {
        const m = event.data;
        if (m.type === "ready") resolve();
        else if (m.type === "call") void this.answer(w, m);
        else void this.settle(m);
      };
      w.onerror = (event) => {
        const err = new Error(`click flush worker failed: ${event.message}`);
        reject(err);
        for (const p of this.pending.values()) p.reject(err);
        this.pending.clear();
        this.worker = null;
        this.ready = null;
      };
      w.postMessage({ type: "init", init: { chdbPath: this.chdbPath } } satisfies ToWorker);
    });
  }

  private async answer(w: Worker, m: StoreCall) {
    try {
      const store = this.contexts.get(m.ctx)?.store;
      if (!store) throw new Error(`unknown flush context ${m.ctx}`);
      const result = await (store[m.method] as (...a: unknown[]) => Promise<unknown>)(...m.args);
      w.postMessage({ type: "reply", id: m.id, result: result instanceof Set ? [...result] : result } satisfies ToWorker);
    } catch (err) {
      w.postMessage({ type: "reply", id: m.id, error: String(err) } satisfies ToWorker);
    }
  }

  private async settle(m: Extract<FromWorker, { type: "flushed" | "failed" }>) {
    const p = this.pending.get(m.id);
    this.pending.delete(m.id);
    if (!p) return;
    if (m.type === "failed") return p.reject(new Error(m.error));
    this.lastBackground = m.background;
    const deps = this.contexts.get(p.ctx)?.deps;
    try {
      if (!deps) throw new Error("click flusher closed");
      if (m.lines) await insertClickLines(deps.ch, m.lines, m.count, p.token);
      await touchLinksLastAccessed(deps.pg, new Map(m.latest));
      p.resolve(m.count);
    } catch (err) {
      p.reject(err as Error);
    }
  }
}

const workers = new Map<string, FlushWorker>();
let nextContext = 0;

export function createClickFlusher(deps: ClickFlusherDeps): ClickFlusher {
  const chdbPath =
    deps.ch.kind === "chdb"
      ? (deps.ch.client as unknown as { connection?: { chdb?: { session?: { path?: string } } } }).connection?.chdb?.session?.path
      : undefined;
  const key = chdbPath ?? "";
  let worker = workers.get(key);
  if (!worker) workers.set(key, (worker = new FlushWorker(chdbPath)));
  const ctx = nextContext++;
  worker.contexts.set(ctx, {
    store: visitorHashStore(deps),
    deps,
    context: { table: deps.ch.table("clicks"), trustProxy: deps.trustProxy, hashSecret: deps.hashSecret, geoipCityDb: deps.geoipCityDb },
  });
  worker.ensureStarted().catch(() => {}); // a failed start is retried by the next flush
  let overBound = false;
  const flush = (bytes: Uint8Array, token: string) => worker.flush(ctx, bytes, token, overBound);
  const sink = async (records: RawClick[], token: string) => {
    if (records.length) await flush(Buffer.from(JSON.stringify(records) + "\n"), token);
  };
  return {
    stream: {
      sink,
      sinkRaw: flush,
      encoder: { bound: clickRecordBound, encode: encodeClick },
      parse: decodeClicks,
      // After a crash, the chunk that was in flight is checked by click_id.
      reconcile: missingById<RawClick>(deps.ch, "clicks", "click_id", "UUID", (c) => c.click_id),
      maxChunkBytes: 8 * 1024 * 1024,
      // Measured: an insert into clicks and its seven views costs ~25 ms of CPU besides its rows, which at
      // four inserts a second and 30,000 redirects/s was ~3 µs per click.
      gatherMs: 1_000,
      onOverBound: (over) => {
        overBound = over;
      },
    },
    get storedInBackground() {
      return worker.lastBackground;
    },
    async close() {
      worker.drop(ctx);
    },
  };
}
