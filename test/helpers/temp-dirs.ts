// Temporary directories for one test file (removed after its tests) or the whole run (removed after its last file).
import { afterAll } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A maker of fresh directories named `prefix…`; afterAll removes every one it made. */
export function useTempDirs(prefix: string): () => string {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  return () => {
    const d = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(d);
    return d;
  };
}

const processDirs: string[] = [];

/** A fresh directory named `prefix…`, removed after the test run's last file (a chDB's reaches 600 MB). */
export function processTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  processDirs.push(dir);
  return dir;
}

/** Called once by the preload after every test file has run. */
export function removeProcessTempDirs(): void {
  for (const d of processDirs.splice(0)) rmSync(d, { recursive: true, force: true });
}
