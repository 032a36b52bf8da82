// Idempotency keys of spooled batches, kept on disk as long as their window lasts, so that a restart
// (a kill -9 included) still knows which batches it stored. Without REDIS_URL the keys otherwise live
// in process memory only: a batch spooled just before a crash, whose 202 never reached the client,
// would be stored a second time when the client retries it after the restart.
//
// A key is written here just before the spool's write of its batch (AppendOptions.beforeWrite) with
// the position where the batch ends, and fsynced alongside the batch. On start-up a key counts only
// if that position is within the log the spool recovered: a crash between this write and the
// batch's loses the batch and the key together, and the client's retry is stored. The keys that
// count are copied into a fresh file; older files go. A file is replaced once it is a window old, and
// the one before it deleted then (every key in it has expired).
import { closeSync, fsync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { SpoolPosition } from "../../ingest/spool";

export interface JournalKey {
  key: string;
  expiresAt: number;
}

const FILE = /^(\d+)\.log$/;
const FORGET = "-";

export class IdempotencyJournal {
  private current: JournalFile;
  private previous: JournalFile | null = null;

  private constructor(
    private readonly dir: string,
    private readonly windowMs: number,
    private readonly onError: (err: unknown) => void,
    nowMs: number,
  ) {
    this.current = new JournalFile(dir, nowMs);
  }

  /**
   * Opens the journal in `dir` and returns the keys that still count: unexpired, and whose batch
   * ends within `recoveredEnd` (the spool's log as found at start-up).
   */
  static open(
    dir: string,
    recoveredEnd: SpoolPosition,
    opts: { windowMs: number; nowMs?: number; onError?: (err: unknown) => void },
  ): { journal: IdempotencyJournal; keys: JournalKey[] } {
    const nowMs = opts.nowMs ?? Date.now();
    mkdirSync(dir, { recursive: true });
    const old = readdirSync(dir)
      .filter((f) => FILE.test(f))
      .sort((a, b) => Number(FILE.exec(a)![1]) - Number(FILE.exec(b)![1]));
    const entries = new Map<string, { expiresAt: number; at: SpoolPosition }>();
    for (const f of old) readEntries(readFileSync(join(dir, f), "utf8"), entries);
    const keys: JournalKey[] = [];
    for (const [key, e] of entries) if (e.expiresAt > nowMs && notAfter(e.at, recoveredEnd)) keys.push({ key, expiresAt: e.expiresAt });

    const journal = new IdempotencyJournal(dir, opts.windowMs, opts.onError ?? (() => {}), Math.max(nowMs, newest(old) + 1));
    // Only keys that count move on: a key whose batch was lost must not count after a later restart,
    // when the log may have grown past its position.
    if (keys.length) {
      const carried = keys.map((k) => line(k.key, k.expiresAt, entries.get(k.key)!.at)).join("");
      writeSync(journal.current.fd, carried);
      fsyncSync(journal.current.fd);
    }
    for (const f of old) unlinkSync(join(dir, f));
    return { journal, keys };
  }

  /**
   * Writes the key (call it from the spool's beforeWrite) and resolves once it is on disk. A failure is
   * reported, not thrown: the batch is still stored and the key still held in memory.
   */
  record(key: string, expiresAt: number, end: SpoolPosition, nowMs = Date.now()): Promise<void> {
    try {
      if (nowMs - this.current.createdAt >= this.windowMs) this.rotate(nowMs);
      writeSync(this.current.fd, line(key, expiresAt, end));
    } catch (err) {
      this.onError(err);
      return Promise.resolve();
    }
    return this.current.sync().catch((err) => this.onError(err));
  }

  /** The batch of `key` was not stored after all (its spool write failed). */
  forget(key: string): void {
    try {
      writeSync(this.current.fd, `${FORGET}\t${key}\n`);
    } catch (err) {
      this.onError(err);
    }
  }

  close(): void {
    this.previous?.close();
    this.current.close();
  }

  private rotate(nowMs: number): void {
    // Every key of the previous file was written before the current one began, a window ago: expired.
    if (this.previous) {
      this.previous.close();
      unlinkSync(this.previous.path);
    }
    this.previous = this.current;
    this.current = new JournalFile(this.dir, Math.max(nowMs, this.current.createdAt + 1));
  }
}

/** One file of the journal, with group commit: one fsync at a time, and one more for lines written meanwhile. */
class JournalFile {
  readonly fd: number;
  readonly path: string;
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;

  constructor(
    dir: string,
    readonly createdAt: number,
  ) {
    this.path = join(dir, `${createdAt}.log`);
    this.fd = openSync(this.path, "a");
  }

  /** Resolves once every line written before the call is on disk. */
  sync(): Promise<void> {
    if (!this.running) {
      this.running = new Promise<void>((resolve, reject) => fsync(this.fd, (err) => (err ? reject(err) : resolve()))).finally(() => {
        this.running = null;
      });
      return this.running;
    }
    this.queued ??= this.running
      .catch(() => {})
      .then(() => {
        this.queued = null;
        return this.sync();
      });
    return this.queued;
  }

  close(): void {
    closeSync(this.fd);
  }
}

const line = (key: string, expiresAt: number, at: SpoolPosition) => `${key}\t${expiresAt}\t${at.segment}\t${at.offset}\n`;

/** Applies the file's lines in order; a last line a crash cut short (no newline yet) is skipped. */
function readEntries(text: string, into: Map<string, { expiresAt: number; at: SpoolPosition }>): void {
  const lines = text.split("\n");
  lines.pop();
  for (const l of lines) {
    const f = l.split("\t");
    if (f.length === 2 && f[0] === FORGET) into.delete(f[1]);
    else if (f.length === 4 && /^\d+$/.test(f[1]) && /^\d+$/.test(f[2]) && /^\d+$/.test(f[3])) {
      into.set(f[0], { expiresAt: Number(f[1]), at: { segment: Number(f[2]), offset: Number(f[3]) } });
    }
  }
}

const notAfter = (a: SpoolPosition, b: SpoolPosition) => a.segment < b.segment || (a.segment === b.segment && a.offset <= b.offset);

const newest = (files: string[]) => (files.length ? Number(FILE.exec(files[files.length - 1])![1]) : 0);
