// What a spool finds on disk when it opens: the checkpoint, its id, and every segment not yet flushed,
// each cut back to its last whole line (a line cut short by a crash was never acknowledged). Segments
// before the checkpoint's were flushed already and are deleted.
import { closeSync, fstatSync, ftruncateSync, openSync, readdirSync, readSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { readOrCreateSpoolIdentity, type SpoolIdentity } from "./identity";
import { NEWLINE, readCheckpoint, SEGMENT_RE, segName, type Backlog, type Checkpoint } from "./segments";

export interface RecoveredSpool {
  checkpoint: Checkpoint;
  identity: SpoolIdentity;
  /** segment → bytes, for every segment from the checkpoint's on. */
  sizes: Map<number, number>;
  /** The segment to append to: the last one found, or the checkpoint's. */
  segment: number;
  /** What is left to flush. */
  backlog: Backlog;
}

export function recoverSpool(dir: string): RecoveredSpool {
  const checkpoint = readCheckpoint(dir);
  const identity = readOrCreateSpoolIdentity(dir, checkpoint.pending);
  const segments = readdirSync(dir)
    .map((f) => SEGMENT_RE.exec(f)?.[1])
    .filter((s): s is string => !!s)
    .map(Number)
    .sort((a, b) => a - b);
  const sizes = new Map<number, number>();
  for (const n of segments) {
    if (n < checkpoint.segment) {
      unlinkSync(join(dir, segName(n)));
      continue;
    }
    sizes.set(n, truncateTornTail(join(dir, segName(n))));
  }
  const segment = segments.length ? Math.max(segments[segments.length - 1], checkpoint.segment) : checkpoint.segment;
  let bytes = 0;
  for (const [n, size] of sizes) {
    if (n > checkpoint.segment) bytes += size;
    else if (n === checkpoint.segment) bytes += Math.max(0, size - checkpoint.offset);
  }
  return { checkpoint, identity, sizes, segment, backlog: { bytes, written: bytes, marks: bytes > 0 ? [bytes, Date.now()] : [] } };
}

/** Drops a torn last line so the log stays line-aligned; returns the segment's new size. */
function truncateTornTail(path: string): number {
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
