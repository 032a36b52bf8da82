// The files the embedded inserts hand to ClickHouse's file() (RowBinary rows: see repository.ts
// insertFromFileStatement). Each pipeline has a folder of its own under the data directory, emptied when
// it opens (files a crash left), 0700; each file is created exclusively, 0600, and removed once its
// insert has read it, whether the insert succeeded or not.
import { mkdirSync, rmSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { PLAIN_PATH } from "./repository";

/** The folder, emptied; null when its path is one file() would misread (quotes, glob characters) or cannot be made. */
export function openInsertFileDir(dir: string): string | null {
  const abs = resolve(dir);
  if (!PLAIN_PATH.test(abs)) return null;
  try {
    rmSync(abs, { recursive: true, force: true });
    mkdirSync(abs, { recursive: true, mode: 0o700 });
    return abs;
  } catch {
    return null;
  }
}

let nextFile = 0;

/** The path of a new file in `dir` for this process (names never repeat within it). */
export const nextInsertFile = (dir: string) => join(dir, `${process.pid}-${nextFile++}.rowbinary`);

/** Writes `bytes` to a new file in `dir` (on the thread pool), runs `insert` with its path, removes it. */
export async function withInsertFile(dir: string, bytes: Uint8Array, insert: (file: string) => Promise<void>): Promise<void> {
  const file = nextInsertFile(dir);
  try {
    await writeFile(file, bytes, { flag: "wx", mode: 0o600 });
    await insert(file);
  } finally {
    await rm(file, { force: true });
  }
}
