// EventStorage on the file system for Node and Bun: one file per key in a directory, each write to a
// temporary file that is fsynced and renamed over the old one, so a crash leaves the old value or
// the new one, never a torn file. One client (one storage key prefix) per directory and process.
import { mkdir, open, readFile, readdir, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import type { EventStorage } from "./storage";

export interface FileStorageOptions {
  /** fsync each write and the directory (default true); false trades power-loss safety for speed. */
  sync?: boolean;
}

export function fileStorage(dir: string, { sync = true }: FileStorageOptions = {}): EventStorage {
  const ready = prepare(dir);
  const path = (key: string) => join(dir, encodeURIComponent(key).replace(/^\./, "%2E") + ".json");
  let seq = 0;
  return {
    async getItem(key) {
      await ready;
      try {
        return await readFile(path(key), "utf8");
      } catch (err) {
        if ((err as { code?: string }).code === "ENOENT") return null;
        throw err;
      }
    },
    async setItem(key, value) {
      await ready;
      const tmp = `${path(key)}.${++seq}.${Math.random().toString(36).slice(2)}.tmp`;
      const file = await open(tmp, "w");
      try {
        await file.writeFile(value, "utf8");
        if (sync) await file.sync();
      } finally {
        await file.close();
      }
      await rename(tmp, path(key));
      if (sync) await syncDir(dir);
    },
    async removeItem(key) {
      await ready;
      try {
        await unlink(path(key));
      } catch (err) {
        if ((err as { code?: string }).code !== "ENOENT") throw err;
      }
      if (sync) await syncDir(dir);
    },
  };
}

/** Creates the directory and removes temporary files a crash left behind. */
async function prepare(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const name of await readdir(dir)) if (name.endsWith(".tmp")) await unlink(join(dir, name)).catch(() => {});
}

/** A rename or unlink is durable once the directory is synced. */
async function syncDir(dir: string): Promise<void> {
  const d = await open(dir, "r");
  try {
    await d.sync();
  } finally {
    await d.close();
  }
}
