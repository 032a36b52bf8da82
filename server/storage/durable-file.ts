// Writing a small file so that it survives a crash or a power loss whole or not at all: written to a
// temporary name, synced, renamed into place, and the directory synced so the new name is on disk too.
import { closeSync, fsyncSync, openSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

export function writeFileDurably(path: string, data: string): void {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, data);
  const fd = openSync(tmp, "r");
  fsyncSync(fd);
  closeSync(fd);
  renameSync(tmp, path);
  const dirFd = openSync(dirname(path), "r");
  fsyncSync(dirFd);
  closeSync(dirFd);
}
