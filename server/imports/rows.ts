// The checked rows of an import: POST /imports reads the file whole once to check it, and keeps what each
// row became (a record, one JSON line per data row) beside the upload, so the job reads these lines
// instead of parsing the CSV a second time. Written under a temporary name and renamed when complete: the
// job uses the file only whole, and reads the upload itself when it is missing.
import { closeSync, openSync, writeSync } from "node:fs";
import { rename, rm } from "node:fs/promises";
import type { FileRow } from "./file";
import type { ImportRecord } from "./sources";

/** The lines are encoded into one buffer, written when full: no allocation per line or per write. */
const BUFFER_BYTES = 1 << 20;
/**
 * A full collection every 4 MB of lines: each row's record and its JSON are garbage a moment later, but in
 * the server (whose heap holds Postgres in WASM) the engine left them to pile up, and a 200 MB upload grew
 * the process by 250 MB; the reading's own collection every 50,000 rows (file.ts) was not enough. Not by
 * rows: a collection costs ~0.2–0.4 s there, and a file of 10,000 rows (some 2.5 MB of lines) should not pay one.
 */
const GC_EVERY_BYTES = 4 << 20;
/** Reading the lines back, as file.ts reads a CSV. */
const GC_EVERY_ROWS = 50_000;

export const rowsPathOf = (uploadPath: string) => uploadPath.replace(/\.upload$/, ".rows");

export interface RowsWriter {
  add(record: ImportRecord): void;
  /** All rows added: the file takes its final name. */
  finish(): Promise<void>;
  /** The file is not wanted (the upload was refused). */
  discard(): Promise<void>;
}

/** Every byte, or an error: a short write (a disk nearly full) must not leave a file that reads as complete. */
function writeAll(fd: number, bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.length) {
    const n = writeSync(fd, bytes, written, bytes.length - written);
    if (n <= 0) throw new Error("the checked rows could not be written");
    written += n;
  }
}

/** Written synchronously, a megabyte at a time (awaiting a write per batch of rows grew the process's memory). */
export function rowsWriter(uploadPath: string): RowsWriter {
  const path = rowsPathOf(uploadPath);
  const partial = `${path}.partial`;
  const encoder = new TextEncoder();
  let buffer: Uint8Array | null = null;
  let used = 0;
  let fd: number | null = null;
  let sinceGc = 0;
  const flush = () => {
    fd ??= openSync(partial, "w");
    if (used) writeAll(fd, buffer!.subarray(0, used));
    sinceGc += used;
    used = 0;
    if (sinceGc >= GC_EVERY_BYTES) {
      sinceGc = 0;
      Bun.gc(true);
    }
  };
  const close = () => {
    if (fd !== null) closeSync(fd);
    fd = null;
  };
  return {
    add(record) {
      buffer ??= new Uint8Array(BUFFER_BYTES);
      const line = `${JSON.stringify(record)}\n`;
      // At most 3 bytes per UTF-16 unit.
      if (used + line.length * 3 > buffer.length) flush();
      if (line.length * 3 > buffer.length) writeAll(fd!, Buffer.from(line));
      else used += encoder.encodeInto(line, buffer.subarray(used)).written;
    },
    async finish() {
      flush();
      close();
      await rename(partial, path);
    },
    async discard() {
      used = 0;
      close();
      await rm(partial, { force: true });
    },
  };
}

/** The records of the rows file from data row `from` + 1 on (a row's number is its line's). */
export async function* checkedRows(path: string, from = 0): AsyncGenerator<FileRow & { record: ImportRecord }> {
  const decoder = new TextDecoder();
  let rest = "";
  let row = 0;
  for await (const chunk of Bun.file(path).stream()) {
    const lines = (rest + decoder.decode(chunk, { stream: true })).split("\n");
    rest = lines.pop()!;
    for (const line of lines) {
      if (++row <= from) continue;
      if (row % GC_EVERY_ROWS === 0) Bun.gc(true);
      const record = JSON.parse(line) as ImportRecord;
      // A click's time went through JSON as its ISO string.
      if (record.kind === "click") record.timestamp = new Date(record.timestamp);
      yield { row, record };
    }
  }
}
