// A durable, segmented, append-only log in front of ClickHouse.
//
// Each append is one line (a JSON array of records) written with a single write syscall, so a
// batch is all-or-nothing. `append` resolves after fsync (group commit: many appends share one
// fsync); `appendSoon` (the redirect path) resolves once written, sharing one write per event-loop
// turn, and a timer fsyncs. The flusher reads from
// the checkpoint, records its intent (byte range) before inserting, and inserts with a
// deduplication token derived from that range and the spool's own id (identity.ts): a replay
// after a crash re-sends the identical range with the identical token, which ClickHouse drops as a
// duplicate, and no other spool ever sends that token.
import {
  closeSync,
  existsSync,
  fstatSync,
  fsync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  unlinkSync,
  writeSync,
  readFileSync,
} from "node:fs";
import { open, rename } from "node:fs/promises";
import { join } from "node:path";
import { chunkToken, readOrCreateSpoolIdentity, type SpoolIdentity } from "./identity";

export interface SpoolOptions<T> {
  dir: string;
  name: string;
  /** Unflushed bytes above which `isOverBound` is true (callers answer 503). */
  maxUnflushedBytes: number;
  segmentBytes?: number;
  flushIntervalMs?: number;
  maxChunkBytes?: number;
  sink: (records: T[], dedupToken: string) => Promise<void>;
  /**
   * For the chunk whose insert was in flight when an earlier process died: returns the records not
   * stored yet. ClickHouse's deduplication log can record a token whose part a crash then lost, so
   * that chunk is checked by its rows, not trusted to the token.
   */
  reconcile?: (records: T[]) => Promise<T[]>;
  /**
   * Optional fast path of the flusher: the chunk's bytes (whole lines, each one append's JSON array)
   * instead of parsed records; resolves to the number of records stored. The buffer is the sink's to
   * modify. The chunk reconciled after a crash still goes through `sink`.
   */
  sinkRaw?: (bytes: Buffer, dedupToken: string) => Promise<number>;
  onError?: (err: unknown) => void;
}

/** A place in the log. Every append ends at a greater position than the ones before it, across restarts. */
export interface SpoolPosition {
  segment: number;
  offset: number;
}

export interface AppendOptions {
  /**
   * Called synchronously just before the write syscall that carries the batch, with the position
   * where the batch will end. After a crash, the batch was written whole iff that position is at or
   * before `recoveredEnd` (what a crash left half-written is cut off at start-up).
   */
  beforeWrite?: (end: SpoolPosition) => void;
}

interface Checkpoint {
  segment: number;
  offset: number;
  /** `token`: set when a crash reconcile inserted part of the chunk under a token of its own (see flushAll). */
  pending: { segment: number; start: number; end: number; token?: string } | null;
}

const SEGMENT_RE = /^(\d{12})\.log$/;
const segName = (n: number) => `${String(n).padStart(12, "0")}.log`;
const NEWLINE = 0x0a;

export class Spool<T> {
  private fd = -1;
  private segment = 0;
  private readonly sizes = new Map<number, number>(); // segment → bytes written
  private checkpoint: Checkpoint = { segment: 0, offset: 0, pending: null };
  private queue: { buf: Buffer; resolve: () => void; reject: (e: unknown) => void; beforeWrite?: AppendOptions["beforeWrite"] }[] = [];
  private writing = false;
  private dirty = false;
  private syncing = false;
  private soon: string[] = [];
  private soonWritten: Promise<void> | null = null;
  private flushing: Promise<void> | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;
  private syncTimer: ReturnType<typeof setInterval> | null = null;
  private unflushed = 0;
  private unflushedSince = 0;
  private closed = false;
  /** The pending chunk found at start-up, if any: its insert may or may not have landed. */
  private uncertain: Checkpoint["pending"] = null;
  private identity!: SpoolIdentity;
  /** flushedBytes + unflushedBytes = every byte written to the log, this process's and recovered. */
  readonly stats = { appendedRecords: 0, flushedRecords: 0, flushedBytes: 0, flushErrors: 0 };
  /** The end of the log as this process found it at start-up. */
  recoveredEnd: SpoolPosition = { segment: 0, offset: 0 };
  private readonly segmentBytes: number;
  private readonly maxChunkBytes: number;

  constructor(private readonly opts: SpoolOptions<T>) {
    this.segmentBytes = opts.segmentBytes ?? 64 * 1024 * 1024;
    this.maxChunkBytes = opts.maxChunkBytes ?? 8 * 1024 * 1024;
    mkdirSync(opts.dir, { recursive: true });
    this.recover();
  }

  get name() {
    return this.opts.name;
  }
  /** The random id in every chunk token of this directory. */
  get id() {
    return this.identity.id;
  }
  get unflushedBytes() {
    return this.unflushed;
  }
  get isOverBound() {
    return this.unflushed >= this.opts.maxUnflushedBytes;
  }
  /** Seconds since the oldest unflushed byte was written (0 when caught up). */
  get lagSeconds() {
    return this.unflushed > 0 && this.unflushedSince ? (Date.now() - this.unflushedSince) / 1000 : 0;
  }

  /** Durable append: resolves once the batch is written and fsynced. */
  append(records: readonly T[], opts: AppendOptions = {}): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`spool ${this.opts.name} is closed`));
    const buf = Buffer.from(JSON.stringify(records) + "\n");
    return new Promise((resolve, reject) => {
      this.queue.push({ buf, resolve, reject, beforeWrite: opts.beforeWrite });
      this.stats.appendedRecords += records.length;
      if (!this.writing) void this.writeLoop();
    });
  }

  /**
   * Written before the promise resolves, with one write syscall shared by every record appended in
   * the same turn of the event loop (the redirect answers only once its click is written).
   */
  appendSoon(record: T): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`spool ${this.opts.name} is closed`));
    this.soon.push("[" + JSON.stringify(record) + "]\n");
    this.stats.appendedRecords += 1;
    if (!this.soonWritten) {
      this.soonWritten = new Promise<void>((resolve, reject) => {
        setImmediate(() => {
          const lines = this.soon;
          this.soon = [];
          this.soonWritten = null;
          try {
            this.writeBuffer(lines.length === 1 ? lines[0] : lines.join(""));
            this.dirty = true;
            resolve();
          } catch (err) {
            reject(err);
          }
        });
      });
    }
    return this.soonWritten;
  }

  start(): void {
    const every = this.opts.flushIntervalMs ?? 250;
    this.timer = setInterval(() => void this.flush().catch(() => {}), every);
    this.syncTimer = setInterval(() => this.syncIfDirty(), 1000);
  }

  /** Moves everything written so far into the sink. Concurrent callers share one run. */
  flush(): Promise<void> {
    if (!this.flushing) {
      this.flushing = this.flushAll().finally(() => {
        this.flushing = null;
      });
    }
    return this.flushing;
  }

  /** Stop timers, wait for writes, flush everything, close the file. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.syncTimer) clearInterval(this.syncTimer);
    while (this.writing || this.queue.length || this.soonWritten) await (this.soonWritten ?? Bun.sleep(1));
    this.closed = true;
    this.syncNow();
    try {
      await this.flush();
    } catch (err) {
      this.opts.onError?.(err);
    }
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }

  // ---- writing ----

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
          await new Promise<void>((res, rej) => fsync(this.fd, (err) => (err ? rej(err) : res())));
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
  private announce(group: { buf: Buffer; beforeWrite?: AppendOptions["beforeWrite"] }[], length: number): void {
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
    if (size > 0 && size + length > this.segmentBytes) this.rollSegment();
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
    if (this.unflushed === 0) this.unflushedSince = Date.now();
    this.unflushed += length;
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

  /** The timer's fsync runs on the thread pool, so it never stalls the redirect path. */
  private syncIfDirty(): void {
    if (!this.dirty || this.fd < 0 || this.syncing) return;
    this.dirty = false;
    this.syncing = true;
    fsync(this.fd, () => {
      this.syncing = false;
    });
  }

  private syncNow(): void {
    if (this.fd >= 0) fsyncSync(this.fd);
    this.dirty = false;
  }

  // ---- recovery ----

  private recover(): void {
    const cpPath = join(this.opts.dir, "checkpoint.json");
    if (existsSync(cpPath)) this.checkpoint = JSON.parse(readFileSync(cpPath, "utf8"));
    this.uncertain = this.checkpoint.pending;
    this.identity = readOrCreateSpoolIdentity(this.opts.dir, this.checkpoint.pending);
    const segments = readdirSync(this.opts.dir)
      .map((f) => SEGMENT_RE.exec(f)?.[1])
      .filter((s): s is string => !!s)
      .map(Number)
      .sort((a, b) => a - b);
    for (const n of segments) {
      if (n < this.checkpoint.segment) {
        unlinkSync(join(this.opts.dir, segName(n)));
        continue;
      }
      this.sizes.set(n, this.truncateTornTail(n));
    }
    this.segment = segments.length ? Math.max(segments[segments.length - 1], this.checkpoint.segment) : this.checkpoint.segment;
    this.openSegment(this.segment);
    this.recoveredEnd = { segment: this.segment, offset: this.sizes.get(this.segment) ?? 0 };
    for (const [n, size] of this.sizes) {
      if (n > this.checkpoint.segment) this.unflushed += size;
      else if (n === this.checkpoint.segment) this.unflushed += Math.max(0, size - this.checkpoint.offset);
    }
    if (this.unflushed > 0) this.unflushedSince = Date.now();
  }

  /** A line cut short by a crash was never acknowledged: drop it so the log stays line-aligned. */
  private truncateTornTail(n: number): number {
    const path = join(this.opts.dir, segName(n));
    const fd = openSync(path, "r+");
    try {
      const size = fstatSync(fd).size;
      if (size === 0) return 0;
      const tail = Buffer.alloc(Math.min(size, 1 << 20));
      let end = size;
      while (end > 0) {
        const len = Math.min(tail.length, end);
        readSync(fd, tail, 0, len, end - len);
        const idx = tail.subarray(0, len).lastIndexOf(NEWLINE);
        if (idx >= 0) {
          end = end - len + idx + 1;
          break;
        }
        end -= len;
      }
      if (end !== size) ftruncateSync(fd, end);
      return end;
    } finally {
      closeSync(fd);
    }
  }

  // ---- flushing ----

  private async flushAll(): Promise<void> {
    for (;;) {
      const chunk = this.checkpoint.pending ?? (await this.nextChunk());
      if (!chunk) return;
      if (!this.checkpoint.pending) await this.saveCheckpoint({ ...this.checkpoint, pending: chunk });
      let token = chunk.token ?? chunkToken(this.opts.name, this.identity, chunk);
      let stored = 0;
      try {
        const uncertain =
          this.uncertain && this.opts.reconcile && this.uncertain.segment === chunk.segment && this.uncertain.start === chunk.start;
        if (this.opts.sinkRaw && !uncertain) {
          stored = await this.opts.sinkRaw(await this.readBytes(chunk.segment, chunk.start, chunk.end), token);
        } else {
          let records = await this.readRecords(chunk.segment, chunk.start, chunk.end);
          if (uncertain) {
            // All rows stored: replay under the same token anyway, which fills in any materialized view
            // whose block the crash lost (view blocks deduplicate separately). Rows missing: insert
            // just those under a fresh token, as the old one may be stale.
            const missing = await this.opts.reconcile!(records);
            if (missing.length) {
              records = missing;
              token = `${chunkToken(this.opts.name, this.identity, chunk)}-reconciled-${crypto.randomUUID()}`;
              // Saved before the insert: if it stores the rows and a crash follows, the next replay of this
              // chunk finds them all present and must replay under this token, the one ClickHouse recorded
              // (under the chunk's own token, never recorded, it would store every row a second time).
              await this.saveCheckpoint({ ...this.checkpoint, pending: { ...chunk, token } });
            }
          }
          if (records.length) await this.opts.sink(records, token);
          stored = records.length;
        }
        this.uncertain = null;
      } catch (err) {
        this.stats.flushErrors += 1;
        this.opts.onError?.(err);
        throw err;
      }
      this.stats.flushedRecords += stored;
      this.stats.flushedBytes += chunk.end - chunk.start;
      this.unflushed = Math.max(0, this.unflushed - (chunk.end - chunk.start));
      if (this.unflushed > 0) this.unflushedSince = Date.now();
      await this.saveCheckpoint({ segment: chunk.segment, offset: chunk.end, pending: null });
    }
  }

  /** The next line-aligned byte range after the checkpoint, advancing past finished segments. */
  private async nextChunk(): Promise<Checkpoint["pending"]> {
    for (;;) {
      const { segment, offset } = this.checkpoint;
      const size = this.sizes.get(segment) ?? 0;
      if (offset < size) {
        const end = this.lineAlignedEnd(segment, offset, size);
        return { segment, start: offset, end };
      }
      if (segment >= this.segment) return null;
      // Finished segment: move on and delete it.
      await this.saveCheckpoint({ segment: segment + 1, offset: 0, pending: null });
      this.sizes.delete(segment);
      try {
        unlinkSync(join(this.opts.dir, segName(segment)));
      } catch {}
    }
  }

  /** Segment sizes are always line-aligned (whole lines per write); only a long range needs a search. */
  private lineAlignedEnd(segment: number, start: number, size: number): number {
    if (size - start <= this.maxChunkBytes) return size;
    const fd = openSync(join(this.opts.dir, segName(segment)), "r");
    try {
      const probe = Buffer.alloc(64 * 1024);
      const limit = start + this.maxChunkBytes;
      for (let end = limit; end > start; ) {
        const from = Math.max(start, end - probe.length);
        const idx = probe.subarray(0, readSync(fd, probe, 0, end - from, from)).lastIndexOf(NEWLINE);
        if (idx >= 0) return from + idx + 1;
        end = from;
      }
      // One line longer than a chunk: take it whole.
      for (let pos = limit; pos < size; ) {
        const n = readSync(fd, probe, 0, Math.min(probe.length, size - pos), pos);
        const idx = probe.subarray(0, n).indexOf(NEWLINE);
        if (idx >= 0) return pos + idx + 1;
        pos += n;
      }
      return size;
    } finally {
      closeSync(fd);
    }
  }

  private async readRecords(segment: number, start: number, end: number): Promise<T[]> {
    const records: T[] = [];
    for (const line of (await this.readBytes(segment, start, end)).toString("utf8").split("\n")) {
      if (line) for (const r of JSON.parse(line) as T[]) records.push(r);
    }
    return records;
  }

  /** A chunk's bytes, read on the thread pool: a chunk is megabytes, which would stall the event loop. */
  private async readBytes(segment: number, start: number, end: number): Promise<Buffer> {
    const file = await open(join(this.opts.dir, segName(segment)), "r");
    try {
      const buf = Buffer.allocUnsafeSlow(end - start);
      let read = 0;
      while (read < buf.length) {
        const { bytesRead } = await file.read(buf, read, buf.length - read, start + read);
        if (bytesRead === 0) break;
        read += bytesRead;
      }
      return buf.subarray(0, read);
    } finally {
      await file.close();
    }
  }

  /**
   * Written, synced and renamed into place off the main thread (an fsync can wait for the journal to
   * write out the segment's pages, tens of milliseconds a redirect must not wait). The in-memory
   * checkpoint moves at once; callers await durability before acting on it.
   */
  private async saveCheckpoint(cp: Checkpoint): Promise<void> {
    this.checkpoint = cp;
    const path = join(this.opts.dir, "checkpoint.json");
    const tmp = path + ".tmp";
    const file = await open(tmp, "w");
    try {
      await file.writeFile(JSON.stringify(cp));
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(tmp, path);
  }
}
