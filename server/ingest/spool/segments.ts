// The spool's files on disk: numbered, append-only segments of whole lines, and the checkpoint that
// says how far the flusher has stored them (and which chunk it was storing, if any).
import { readFileSync, existsSync } from "node:fs";
import { open, rename } from "node:fs/promises";
import { join } from "node:path";

export const SEGMENT_RE = /^(\d{12})\.log$/;
export const segName = (n: number) => `${String(n).padStart(12, "0")}.log`;
export const NEWLINE = 0x0a;

/** A place in the log. Every append ends at a greater position than the ones before it, across restarts. */
export interface SpoolPosition {
  segment: number;
  offset: number;
}

export interface Checkpoint {
  segment: number;
  offset: number;
  /** `token`: set when a crash reconcile inserted part of the chunk under a token of its own (see flush.ts). */
  pending: { segment: number; start: number; end: number; token?: string } | null;
}

/** Unflushed bytes of the log, shared by the writer (adds), the flusher (subtracts) and the gauges. */
export interface Backlog {
  bytes: number;
  /** Bytes written to the log since start-up, the recovered backlog included. */
  written: number;
  /**
   * When the unflushed bytes were written, coarsely: pairs of (the end of a group of writes, in `written`
   * terms; the time of the group's first write, epoch ms), one group per MARK_MS at most.
   */
  marks: number[];
}

export const MARK_MS = 50;

/** Seconds since the oldest unflushed byte was written (0 when caught up). */
export function backlogAgeSeconds(b: Backlog, now = Date.now()): number {
  return b.bytes > 0 && b.marks.length ? (now - b.marks[1]) / 1000 : 0;
}

/** After `length` bytes were written. */
export function markWritten(b: Backlog, length: number, now = Date.now()): void {
  b.written += length;
  b.bytes += length;
  const m = b.marks;
  if (m.length === 0 || now - m[m.length - 1] >= MARK_MS) m.push(b.written, now);
  else m[m.length - 2] = b.written;
}

/** After `length` bytes were stored: the groups they end are dropped. */
export function markFlushed(b: Backlog, length: number): void {
  b.bytes = Math.max(0, b.bytes - length);
  const flushed = b.written - b.bytes;
  let drop = 0;
  while (drop < b.marks.length && b.marks[drop] <= flushed) drop += 2;
  if (drop) b.marks.splice(0, drop);
}

const checkpointPath = (dir: string) => join(dir, "checkpoint.json");

export function readCheckpoint(dir: string): Checkpoint {
  const path = checkpointPath(dir);
  return existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : { segment: 0, offset: 0, pending: null };
}

/**
 * Written, synced and renamed into place off the main thread (an fsync can wait for the journal to
 * write out the segment's pages, tens of milliseconds a redirect must not wait).
 */
export async function writeCheckpoint(dir: string, cp: Checkpoint): Promise<void> {
  const path = checkpointPath(dir);
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

/** Counters of one spool: flushedBytes + Backlog.bytes = every byte written to the log, this process's and recovered. */
export interface SpoolStats {
  appendedRecords: number;
  flushedRecords: number;
  flushedBytes: number;
  flushErrors: number;
}
