// A zip archive on disk (an upload under DATA_DIR/imports), read with yauzl: the central directory
// first, so the sizes of every entry are known before a byte is inflated and a zip bomb is refused up
// front; then one entry at a time as a stream (yauzl checks that no entry inflates past its declared
// size, and we count what comes out too).
import type { Readable } from "node:stream";
import yauzl from "yauzl";
import { AppError, validationError } from "../errors";

/** The most a zip's entries may hold together once inflated, and how many entries it may have. */
export const ZIP_MAX_UNCOMPRESSED_BYTES = 1024 * 1024 * 1024;
export const ZIP_MAX_ENTRIES = 1000;

const mb = (n: number) => `${Math.round(n / 1048576)} MB`;

export const tooLargeUnzipped = (max: number) =>
  validationError("file", `holds more than ${mb(max)} once unzipped, the most an import takes (a zip bomb?); split the export`, {
    max_uncompressed_bytes: max,
  });

export interface ZipArchive {
  /** The file entries (folders left out), in the archive's order. */
  entries: yauzl.Entry[];
  /** An entry's inflated bytes; the stream errors past `max` bytes in all (counted across calls). */
  open(entry: yauzl.Entry): Promise<Readable>;
  close(): void;
}

export async function openZip(path: string, max = ZIP_MAX_UNCOMPRESSED_BYTES): Promise<ZipArchive> {
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false, strictFileNames: false });
  } catch (err) {
    throw validationError("file", `is not a zip archive we can read: ${(err as Error).message}`);
  }
  try {
    if (zip.entryCount > ZIP_MAX_ENTRIES) throw validationError("file", `has more than ${ZIP_MAX_ENTRIES} entries`);
    const entries: yauzl.Entry[] = [];
    let declared = 0;
    for await (const entry of zip.eachEntry()) {
      if (entry.fileName.endsWith("/")) continue;
      declared += entry.uncompressedSize;
      if (declared > max) throw tooLargeUnzipped(max);
      entries.push(entry);
    }
    let inflated = 0;
    return {
      entries,
      async open(entry) {
        const stream = await zip.openReadStreamPromise(entry);
        stream.on("data", (chunk: Buffer) => {
          inflated += chunk.length;
          if (inflated > max) stream.destroy(tooLargeUnzipped(max));
        });
        return stream;
      },
      close: () => zip.close(),
    };
  } catch (err) {
    zip.close();
    if (err instanceof AppError) throw err;
    throw validationError("file", `is not a zip archive we can read: ${(err as Error).message}`);
  }
}
