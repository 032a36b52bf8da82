// The spool's flushing side. It reads the next chunk (whole lines, up to maxChunkBytes) from the
// checkpoint, records its intent (the byte range) in the checkpoint before inserting, and inserts with a
// deduplication token derived from that range and the spool's own id (identity.ts): a replay after a
// crash re-sends the identical range with the identical token, which ClickHouse drops as a duplicate,
// and no other spool ever sends that token.
import { closeSync, openSync, readSync, unlinkSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { chunkToken, type SpoolIdentity } from "./identity";
import { markFlushed, NEWLINE, segName, writeCheckpoint, type Backlog, type Checkpoint, type SpoolStats } from "./segments";

/** Where a spool's chunks go (the spool's options of the same names). */
export interface FlushOptions<T> {
  dir: string;
  name: string;
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
  /** Reads a chunk's bytes (whole lines) as records; default: each line a JSON array of records. */
  parse?: (bytes: Buffer) => T[];
  onError?: (err: unknown) => void;
  /** Before each chunk: the unflushed bytes then (the clicks flusher leaves background priority above the bound). */
  onBacklog?: (unflushedBytes: number) => void;
}

export interface FlushState {
  checkpoint: Checkpoint;
  identity: SpoolIdentity;
  /** segment → bytes written, shared with the writer. */
  sizes: Map<number, number>;
  /** The segment the writer appends to now (never deleted). */
  writingSegment: () => number;
  backlog: Backlog;
  stats: SpoolStats;
}

export class SpoolFlusher<T> {
  private checkpoint: Checkpoint;
  /** The pending chunk found at start-up, if any: its insert may or may not have landed. */
  private uncertain: Checkpoint["pending"];
  private running: Promise<void> | null = null;
  private readonly maxChunkBytes: number;
  /**
   * Set by a shutdown with a deadline: no chunk starts after this time (Date.now()); the chunk in flight
   * finishes, and the rest stays in the spool for the next start.
   */
  stopStartingAt = Number.POSITIVE_INFINITY;

  constructor(
    private readonly opts: FlushOptions<T>,
    private readonly state: FlushState,
  ) {
    this.checkpoint = state.checkpoint;
    this.uncertain = state.checkpoint.pending;
    this.maxChunkBytes = opts.maxChunkBytes ?? 8 * 1024 * 1024;
  }

  /** Moves everything written so far into the sink. Concurrent callers share one run. */
  flush(): Promise<void> {
    if (!this.running) {
      this.running = this.flushAll().finally(() => {
        this.running = null;
      });
    }
    return this.running;
  }

  private async flushAll(): Promise<void> {
    const { identity, backlog, stats } = this.state;
    for (;;) {
      if (Date.now() >= this.stopStartingAt) return;
      const chunk = this.checkpoint.pending ?? (await this.nextChunk());
      if (!chunk) return;
      this.opts.onBacklog?.(backlog.bytes);
      if (!this.checkpoint.pending) await this.saveCheckpoint({ ...this.checkpoint, pending: chunk });
      let token = chunk.token ?? chunkToken(this.opts.name, identity, chunk);
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
              token = `${chunkToken(this.opts.name, identity, chunk)}-reconciled-${crypto.randomUUID()}`;
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
        stats.flushErrors += 1;
        this.opts.onError?.(err);
        throw err;
      }
      stats.flushedRecords += stored;
      stats.flushedBytes += chunk.end - chunk.start;
      markFlushed(backlog, chunk.end - chunk.start);
      await this.saveCheckpoint({ segment: chunk.segment, offset: chunk.end, pending: null });
    }
  }

  /** The next line-aligned byte range after the checkpoint, advancing past finished segments. */
  private async nextChunk(): Promise<Checkpoint["pending"]> {
    const { sizes } = this.state;
    for (;;) {
      const { segment, offset } = this.checkpoint;
      const size = sizes.get(segment) ?? 0;
      if (offset < size) {
        const end = this.lineAlignedEnd(segment, offset, size);
        return { segment, start: offset, end };
      }
      if (segment >= this.state.writingSegment()) return null;
      // Finished segment: move on and delete it.
      await this.saveCheckpoint({ segment: segment + 1, offset: 0, pending: null });
      sizes.delete(segment);
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
    const bytes = await this.readBytes(segment, start, end);
    if (this.opts.parse) return this.opts.parse(bytes);
    const records: T[] = [];
    for (const line of bytes.toString("utf8").split("\n")) {
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

  /** The in-memory checkpoint moves at once; callers await durability before acting on it. */
  private async saveCheckpoint(cp: Checkpoint): Promise<void> {
    this.checkpoint = cp;
    await writeCheckpoint(this.opts.dir, cp);
  }
}
