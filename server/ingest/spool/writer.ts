// The spool's writing side. Each append is one line (a JSON array of records, or the stream's own line) written with a single
// write syscall, so a batch is all-or-nothing. `append` resolves after fsync (group commit: many appends
// share one fsync); `appendSoon` (the redirect path) resolves once written, sharing one write per
// event-loop turn, and a timer fsyncs on the thread pool.
import { closeSync, fsync, fsyncSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { markWritten, segName, type Backlog, type SpoolPosition, type SpoolStats } from "./segments";

export interface AppendOptions {
  /**
   * Called synchronously just before the write syscall that carries the batch, with the position
   * where the batch will end. After a crash, the batch was written whole iff that position is at or
   * before `recoveredEnd` (what a crash left half-written is cut off at start-up).
   */
  beforeWrite?: (end: SpoolPosition) => void;
}

interface QueuedAppend {
  buf: Buffer;
  resolve: () => void;
  reject: (e: unknown) => void;
  beforeWrite?: AppendOptions["beforeWrite"];
  records?: readonly unknown[];
}

/**
 * A stream's own line format for `appendSoon` (the clicks' binary record): written straight into the
 * writer's buffer. Each line must end with its only newline byte.
 */
export interface RecordEncoder<T> {
  /** An upper bound of the record's line in bytes. */
  bound(record: T): number;
  /** Writes the line at `at`, returns its end; a negative result: the record is written as a JSON line instead. */
  encode(record: T, buf: Buffer, at: number): number;
}

export interface WriterOptions {
  dir: string;
  name: string;
  segmentBytes: number;
  /** segment → bytes written, shared with the flusher (which deletes the segments it has finished). */
  sizes: Map<number, number>;
  /** The segment to append to first. */
  segment: number;
  backlog: Backlog;
  stats: SpoolStats;
  encoder?: RecordEncoder<unknown>;
  /** The line of one `append`, or null for the JSON array (SpoolOptions.appendLine). */
  appendLine?: (records: readonly unknown[]) => Buffer | null;
}

export class SpoolWriter {
  private fd = -1;
  /** The segment appends go to now. */
  segment: number;
  closed = false;
  private queue: QueuedAppend[] = [];
  private writing = false;
  private dirty = false;
  private syncing = false;
  private soon: string[] = [];
  /** With an encoder: the lines of this turn's `appendSoon` records, written by one syscall. */
  private pool: Buffer | null = null;
  private used = 0;
  private soonWritten: Promise<void> | null = null;
  /** The records of `soon`, kept only while someone watches the writes (see onWritten). */
  private soonRecords: unknown[] = [];
  /**
   * Called after each write with the records it carried and the log's written bytes then (an end at or
   * after theirs): the realtime reports' view of what is not in ClickHouse yet (server/ingest/recent.ts).
   */
  onWritten: ((records: readonly unknown[], end: number) => void) | null = null;
  private readonly sizes: Map<number, number>;
  private readonly backlog: Backlog;
  private readonly stats: SpoolStats;

  constructor(private readonly opts: WriterOptions) {
    ({ sizes: this.sizes, backlog: this.backlog, stats: this.stats } = opts);
    this.segment = opts.segment;
    this.openSegment(this.segment);
  }

  /** Durable append: resolves once the batch is written and fsynced. */
  append<T>(records: readonly T[], opts: AppendOptions = {}): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`spool ${this.opts.name} is closed`));
    const buf = this.opts.appendLine?.(records) ?? Buffer.from(JSON.stringify(records) + "\n");
    return new Promise((resolve, reject) => {
      this.queue.push({ buf, resolve, reject, beforeWrite: opts.beforeWrite, records: this.onWritten ? records : undefined });
      this.stats.appendedRecords += records.length;
      if (!this.writing) void this.writeLoop();
    });
  }

  /**
   * Written before the promise resolves, with one write syscall shared by every record appended in
   * the same turn of the event loop (the redirect answers only once its click is written).
   */
  appendSoon<T>(record: T): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`spool ${this.opts.name} is closed`));
    if (this.opts.encoder) this.encodeSoon(record, this.opts.encoder);
    else this.soon.push("[" + JSON.stringify(record) + "]\n");
    if (this.onWritten) this.soonRecords.push(record);
    this.stats.appendedRecords += 1;
    if (!this.soonWritten) {
      this.soonWritten = new Promise<void>((resolve, reject) => {
        setImmediate(() => {
          const lines = this.soon;
          const records = this.soonRecords;
          this.soon = [];
          this.soonRecords = [];
          this.soonWritten = null;
          const pooled = this.used;
          this.used = 0;
          try {
            if (pooled) this.writeBuffer(this.pool!.subarray(0, pooled));
            else this.writeBuffer(lines.length === 1 ? lines[0] : lines.join(""));
            this.dirty = true;
            if (records.length) this.onWritten?.(records, this.backlog.written);
            resolve();
          } catch (err) {
            reject(err);
          }
        });
      });
    }
    return this.soonWritten;
  }

  private encodeSoon<T>(record: T, encoder: RecordEncoder<T>): void {
    this.reserve(encoder.bound(record));
    const end = encoder.encode(record, this.pool!, this.used);
    if (end >= 0) {
      this.used = end;
      return;
    }
    const line = "[" + JSON.stringify(record) + "]\n";
    this.reserve(Buffer.byteLength(line));
    this.used += this.pool!.write(line, this.used, "utf8");
  }

  /** Room for `bytes` more in the turn's buffer (kept between turns; grown, never shrunk). */
  private reserve(bytes: number): void {
    const pool = this.pool;
    if (pool && pool.length - this.used >= bytes) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(1 << 20, 2 * (pool?.length ?? 0), this.used + bytes));
    if (pool) pool.copy(grown, 0, 0, this.used);
    this.pool = grown;
  }

  /** Resolves once no append is queued or being written. */
  async settled(): Promise<void> {
    while (this.writing || this.queue.length || this.soonWritten) await (this.soonWritten ?? Bun.sleep(1));
  }

  /** The timer's fsync runs on the thread pool, so it never stalls the redirect path. */
  syncIfDirty(): void {
    if (!this.dirty || this.fd < 0 || this.syncing) return;
    this.dirty = false;
    this.syncing = true;
    fsync(this.fd, () => {
      this.syncing = false;
    });
  }

  syncNow(): void {
    if (this.fd >= 0) fsyncSync(this.fd);
    this.dirty = false;
  }

  closeFile(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }

  private async writeLoop(): Promise<void> {
    this.writing = true;
    try {
      while (this.queue.length) {
        const group = this.queue;
        this.queue = [];
        try {
          const buf = group.length === 1 ? group[0].buf : Buffer.concat(group.map((g) => g.buf));
          this.announce(group, buf.length);
          this.writeBuffer(buf);
          const end = this.backlog.written;
          await new Promise<void>((res, rej) => fsync(this.fd, (err) => (err ? rej(err) : res())));
          for (const g of group) if (g.records) this.onWritten?.(g.records, end);
          for (const g of group) g.resolve();
        } catch (err) {
          for (const g of group) g.reject(err);
        }
      }
    } finally {
      this.writing = false;
    }
  }

  /** Tells each append that asked where it will end (see AppendOptions.beforeWrite). */
  private announce(group: QueuedAppend[], length: number): void {
    if (!group.some((g) => g.beforeWrite)) return;
    this.rollIfFull(length);
    let end = this.sizes.get(this.segment) ?? 0;
    for (const g of group) {
      end += g.buf.length;
      g.beforeWrite?.({ segment: this.segment, offset: end });
    }
  }

  private rollIfFull(length: number): void {
    const size = this.sizes.get(this.segment) ?? 0;
    if (size > 0 && size + length > this.opts.segmentBytes) this.rollSegment();
  }

  /** One write syscall for the common case; a string skips a Buffer allocation on the redirect path. */
  private writeBuffer(data: Buffer | string): void {
    const buf = typeof data === "string" && data.length > 65536 ? Buffer.from(data) : data;
    const length = typeof buf === "string" ? Buffer.byteLength(buf) : buf.length;
    this.rollIfFull(length);
    const size = this.sizes.get(this.segment) ?? 0;
    if (typeof buf === "string") {
      // Short strings go out whole in one write (a partial write of a small regular-file write does not happen).
      if (writeSync(this.fd, buf) !== length) throw new Error(`spool ${this.opts.name}: short write`);
    } else {
      let written = 0;
      while (written < buf.length) written += writeSync(this.fd, buf, written);
    }
    this.sizes.set(this.segment, size + length);
    markWritten(this.backlog, length);
  }

  /** The full segment is synced and closed on the thread pool: a large fsync never stalls the caller. */
  private rollSegment(): void {
    const full = this.fd;
    fsync(full, () => closeSync(full));
    this.segment += 1;
    this.openSegment(this.segment);
  }

  private openSegment(n: number): void {
    this.fd = openSync(join(this.opts.dir, segName(n)), "a");
    if (!this.sizes.has(n)) this.sizes.set(n, 0);
  }
}
