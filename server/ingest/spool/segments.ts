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
  /** When the oldest unflushed byte was written (epoch ms; 0 when caught up). */
  since: number;
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
