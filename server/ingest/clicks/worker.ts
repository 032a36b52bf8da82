// The click flush worker: parses a spool chunk, enriches it and, with embedded chDB, inserts it through
// its own session. It runs at a low CPU priority, so under saturation the redirect path (main thread)
// keeps the cores and the clicks wait in the spool; idle CPU drains them.
import { lowerOtherThreads, lowerOwnPriority, ownPriorityIsBackground, raiseOtherThreads, raiseOwnPriority } from "./thread-priority";
import { createClickEnricher, type ClickEnricher } from "./enrich";
import { rmSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { nextInsertFile, openInsertFileDir } from "../insert-files";
import { RowBinaryWriter } from "../../storage/clickhouse/row-binary";
import { CLICK_COLUMNS, CLICK_ROW_BINARY_STRUCTURE, type ClickRow, clickRowLine, latestClickPerLink, writeClickRowBinary } from "./rows";
import { decodeClicks } from "./spool-record";
import { insertFromFileStatement, insertStatement } from "./repository";
import type { FlushContext, FromWorker, StoreArgs, StoreCall, StoreMethod, StoreResult, ToWorker } from "./protocol";

declare const self: Worker;
const post = (m: FromWorker) => self.postMessage(m);

// Calls into the main thread's stores (Postgres salts, earlier hashes): once per day, or near midnight.
let nextCall = 0;
const calls = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
const call = <M extends StoreMethod>(ctx: number, method: M, args: StoreArgs<M>) =>
  new Promise<StoreResult<M>>((resolve, reject) => {
    const id = nextCall++;
    calls.set(id, { resolve: resolve as (v: unknown) => void, reject });
    post({ type: "call", ctx, id, method, args } as StoreCall);
  });

const contexts = new Map<number, { context: FlushContext; enrich: ClickEnricher }>();
function open(ctx: number, context: FlushContext) {
  const enrich = createClickEnricher({
    store: {
      findSalt: (day) => call(ctx, "findSalt", [day]),
      ensureSalt: (day, candidate) => call(ctx, "ensureSalt", [day, candidate]),
      deleteSaltsBefore: (day) => call(ctx, "deleteSaltsBefore", [day]),
      findSeen: async (a) => new Set(await call(ctx, "findSeen", [a])),
    },
    trustProxy: context.trustProxy,
    hashSecret: context.hashSecret,
    geoipCityDb: context.geoipCityDb,
  });
  contexts.set(ctx, { context, enrich });
}

// Never closed: a chDB session's teardown stops the engine the whole process shares.
let session: { query(sql: string): string } | null = null;

/**
 * The embedded insert's rows go as RowBinary through a file of this worker's (measured: 4.3 against
 * 7.7 µs of CPU per click with the table and its views, most of the difference ClickHouse's JSON
 * parse; docs/benchmarks.md). The folder is emptied at start (files a crash left) and each file is
 * removed once its insert has read it. A data directory whose path file() would misread (quotes, glob
 * characters) keeps the JSON text.
 */
let fileDir: string | null = null;
const writer = new RowBinaryWriter(1 << 20);

function insertRows(s: NonNullable<typeof session>, table: string, rows: ClickRow[], token: string) {
  if (!fileDir) {
    s.query(`${insertStatement(table, CLICK_COLUMNS, rows.length, token)}\n${rows.map(clickRowLine).join("\n")}`);
    return;
  }
  writer.reset();
  for (const r of rows) writeClickRowBinary(writer, r);
  const file = nextInsertFile(fileDir);
  try {
    writeFileSync(file, writer.bytes(), { flag: "wx", mode: 0o600 });
    s.query(insertFromFileStatement(table, CLICK_COLUMNS, CLICK_ROW_BINARY_STRUCTURE, file, rows.length, token));
  } finally {
    rmSync(file, { force: true });
  }
}

/**
 * Background priority, except while the clicks spool is over SPOOL_MAX_BYTES: then the worker and the
 * engine's threads share the cores with the redirects as equals, so the redirect rate falls to what the
 * instance can store and the lag stops growing, instead of the spool filling the disk.
 */
let catchingUp = false;
function setCatchUp(on: boolean) {
  if (on === catchingUp) return;
  catchingUp = on;
  if (on) {
    raiseOwnPriority();
    if (session) raiseOtherThreads(SPARED);
  } else {
    lowerOwnPriority();
    if (session) lowerOtherThreads(SPARED);
  }
}

self.onmessage = async (event: MessageEvent<ToWorker>) => {
  const m = event.data;
  switch (m.type) {
    case "init":
      lowerOwnPriority();
      if (m.init.chdbPath) {
        session = new (await import("chdb")).Session(m.init.chdbPath);
        fileDir = openInsertFileDir(resolve(m.init.chdbPath, "insert-files"));
        lowerOtherThreads(SPARED);
        setInterval(() => {
          if (!catchingUp) lowerOtherThreads(SPARED);
        }, 2_000);
      }
      return post({ type: "ready" });
    case "open":
      return open(m.ctx, m.context);
    case "drop":
      contexts.delete(m.ctx);
      return;
    case "reply": {
      const pending = calls.get(m.id);
      calls.delete(m.id);
      if (m.error !== undefined) pending?.reject(new Error(m.error));
      else pending?.resolve(m.result);
      return;
    }
    case "flush":
      try {
        const c = contexts.get(m.ctx);
        if (!c) throw new Error(`unknown flush context ${m.ctx}`);
        setCatchUp(m.catchUp);
        const records = decodeClicks(Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength));
        const rows = await c.enrich(records);
        if (session && rows.length) insertRows(session, c.context.table, rows, m.token);
        post({
          type: "flushed",
          id: m.id,
          count: records.length,
          latest: latestClickPerLink(records),
          lines: session ? undefined : rows.map(clickRowLine).join("\n"),
          background: ownPriorityIsBackground(),
        });
      } catch (err) {
        post({ type: "failed", id: m.id, error: String(err instanceof Error ? err.message : err) });
      }
  }
};

/**
 * The embedded engine runs inserts, views and merges on its own thread pools, created at normal
 * priority and renamed per task; they get the flusher's priority too. Spared: the main thread (HTTP),
 * Bun's pool (file I/O of the spool) and the JavaScript engine's compiler and collector threads.
 */
const SPARED =
  /^(bun|bun\.exe|Bun Pool.*|JITWorker|HeapHelper|.*Helper Thread|.*ollector Thread|JSCWarmUp|mi-scavenger|Worker|HTTP Client)$/;
