// A durable, segmented, append-only log in front of ClickHouse, in three parts: the writer (writer.ts:
// appends, fsync), the recovery at start-up (recovery.ts: torn tails, the backlog), and the flusher
// (flush.ts: chunks to the sink under a deduplication token derived from the chunk's place and the
// spool's own id, identity.ts). A kill -9 at any moment loses no acknowledged record and stores none twice.
import { mkdirSync } from "node:fs";
import { SpoolFlusher, type FlushOptions } from "./flush";
import { recoverSpool } from "./recovery";
import { backlogAgeSeconds, type Backlog, type SpoolPosition, type SpoolStats } from "./segments";
import { SpoolWriter, type AppendOptions, type RecordEncoder, type WriterOptions } from "./writer";

export type { AppendOptions, RecordEncoder } from "./writer";
export type { SpoolPosition } from "./segments";

export interface SpoolOptions<T> extends FlushOptions<T> {
  /** Unflushed bytes above which `isOverBound` is true (callers answer 503). */
  maxUnflushedBytes: number;
  segmentBytes?: number;
  flushIntervalMs?: number;
  /**
   * How long `close()` may spend moving the backlog into ClickHouse (ms; default: until it is empty).
   * What is left stays in the spool, durable, and the next start flushes it first.
   */
  drainMs?: number;
  /**
   * A timed flush waits until the oldest unflushed record is this old (ms) or half a chunk is waiting:
   * every insert has a fixed cost (a part per table and view, their merges), so fewer, larger inserts.
   */
  gatherMs?: number;
  /** The line format of `appendSoon` (default: a JSON array of the one record). */
  encoder?: RecordEncoder<T>;
  /**
   * The line of one `append` (default: a JSON array of its records): it must end with its only
   * newline byte, and `parse` (or `sinkRaw`) must read it. Null: the JSON array.
   */
  appendLine?: (records: readonly T[]) => Buffer | null;
}

export class Spool<T> {
  /** flushedBytes + unflushedBytes = every byte written to the log, this process's and recovered. */
  readonly stats: SpoolStats = { appendedRecords: 0, flushedRecords: 0, flushedBytes: 0, flushErrors: 0 };
  /** The end of the log as this process found it at start-up. */
  readonly recoveredEnd: SpoolPosition;
  private readonly writer: SpoolWriter;
  private readonly flusher: SpoolFlusher<T>;
  private readonly backlog: Backlog;
  private readonly spoolId: string;
  private timer: ReturnType<typeof setInterval> | null = null;
  private syncTimer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly opts: SpoolOptions<T>) {
    mkdirSync(opts.dir, { recursive: true });
    const { checkpoint, identity, sizes, segment, backlog } = recoverSpool(opts.dir);
    this.backlog = backlog;
    this.spoolId = identity.id;
    const shared = { sizes, backlog, stats: this.stats };
    this.writer = new SpoolWriter({
      dir: opts.dir,
      name: opts.name,
      segmentBytes: opts.segmentBytes ?? 64 * 1024 * 1024,
      segment,
      encoder: opts.encoder as RecordEncoder<unknown> | undefined,
      appendLine: opts.appendLine as WriterOptions["appendLine"],
      ...shared,
    });
    this.recoveredEnd = { segment, offset: sizes.get(segment) ?? 0 };
    this.flusher = new SpoolFlusher(opts, { checkpoint, identity, writingSegment: () => this.writer.segment, ...shared });
  }

  get name() {
    return this.opts.name;
  }
  /** The random id in every chunk token of this directory. */
  get id() {
    return this.spoolId;
  }
  get unflushedBytes() {
    return this.backlog.bytes;
  }
  get isOverBound() {
    return this.backlog.bytes >= this.opts.maxUnflushedBytes;
  }
  /** Seconds since the oldest unflushed byte was written (0 when caught up; ±50 ms). */
  get lagSeconds() {
    return backlogAgeSeconds(this.backlog);
  }

  /** Bytes of the log stored in ClickHouse since start-up (the recovered backlog's included), in `onWritten`'s terms. */
  get flushedTo() {
    return this.backlog.written - this.backlog.bytes;
  }

  /**
   * Watch every write of this process: `listener(records, end)` once the records are written, `end` at or
   * after their last byte; they are in ClickHouse once `flushedTo >= end`. One watcher.
   */
  onWritten(listener: (records: readonly T[], end: number) => void): void {
    this.writer.onWritten = listener as (records: readonly unknown[], end: number) => void;
  }

  /** Durable append: resolves once the batch is written and fsynced (group commit). */
  append(records: readonly T[], opts: AppendOptions = {}): Promise<void> {
    return this.writer.append(records, opts);
  }

  /**
   * Written before the promise resolves, with one write syscall shared by every record appended in
   * the same turn of the event loop (the redirect answers only once its click is written).
   */
  appendSoon(record: T): Promise<void> {
    return this.writer.appendSoon(record);
  }

  start(): void {
    const every = this.opts.flushIntervalMs ?? 250;
    const gather = this.opts.gatherMs ?? 0;
    const half = (this.opts.maxChunkBytes ?? 8 * 1024 * 1024) / 2;
    this.timer = setInterval(() => {
      if (gather === 0 || this.backlog.bytes >= half || this.lagSeconds * 1000 >= gather) void this.flush().catch(() => {});
    }, every);
    // What an earlier process left (a drain cut by SPOOL_DRAIN_MS, a crash) goes first, without waiting a period.
    if (this.backlog.bytes > 0) void this.flush().catch(() => {});
    this.syncTimer = setInterval(() => this.writer.syncIfDirty(), 1000);
  }

  /** Moves everything written so far into the sink. Concurrent callers share one run. */
  flush(): Promise<void> {
    return this.flusher.flush();
  }

  /**
   * Stop timers, wait for writes, flush for up to `drainMs` (no new chunk starts after it; the one in
   * flight finishes), close the file. Resolves to the bytes left in the spool for the next start.
   */
  async close(): Promise<number> {
    if (this.timer) clearInterval(this.timer);
    if (this.syncTimer) clearInterval(this.syncTimer);
    if (this.opts.drainMs !== undefined) this.flusher.stopStartingAt = Date.now() + this.opts.drainMs;
    await this.writer.settled();
    this.writer.closed = true;
    this.writer.syncNow();
    try {
      // A run started by the timer keeps going under the deadline too (it checks it between chunks).
      await this.flush();
      if (this.opts.drainMs === undefined || Date.now() < this.flusher.stopStartingAt) await this.flush();
    } catch (err) {
      this.opts.onError?.(err);
    }
    this.writer.closeFile();
    return this.backlog.bytes;
  }
}
