// The uploaded file: streamed to DATA_DIR/imports (raw body or one multipart file part) within a byte
// limit, then read back as records, in constant memory whatever its size: UTF-8 decoded strictly (a file
// in another encoding is refused, not misread), a BOM dropped, CRLF and quoted newlines as RFC 4180 says.
import { createWriteStream } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import Busboy from "busboy";
import { parse } from "csv-parse";
import { AppError, validationError } from "../errors";
import { KUTT_MAX_BYTES, kuttItems, normaliseHeader, readKuttLink, type ImportRecord } from "./sources";

/** Largest file POST /imports takes (a CSV; a JSON file is held to KUTT_MAX_BYTES). */
export const IMPORT_MAX_BYTES = 256 * 1024 * 1024;

const tooLarge = (max: number) =>
  new AppError("PAYLOAD_TOO_LARGE", `The file must be at most ${max} bytes (${Math.round(max / 1048576)} MB)`, {
    max_bytes: max,
    field: "file",
  });

/** Copies the body (or its multipart `file` part) to `path`; the file's name when the part had one. */
export async function receiveUpload(
  request: Request,
  path: string,
  max = IMPORT_MAX_BYTES,
): Promise<{ bytes: number; fileName: string | null }> {
  if (!request.body) throw validationError("file", "is required: send the file as the body or as a multipart part named file");
  await mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  const type = request.headers.get("content-type") ?? "";
  try {
    if (type.toLowerCase().startsWith("multipart/form-data")) return await receiveMultipart(request, type, path, max);
    const declared = Number(request.headers.get("content-length") ?? Number.NaN);
    if (Number.isFinite(declared)) {
      // A declared length (the server refused one over the limit): Bun's native file sink takes the body as it
      // comes, at the disk's pace, where a JavaScript copy let the socket fill memory faster than it drained.
      if (declared > max) throw tooLarge(max);
      const bytes = await Bun.write(path, new Response(request.body));
      if (bytes === 0) throw validationError("file", "is empty");
      return { bytes, fileName: null };
    }
    return { bytes: await copyCapped(bodyStream(request), path, max), fileName: null };
  } catch (err) {
    await rm(path, { force: true });
    throw err;
  }
}

/** A JSON body the framework has parsed already (Kutt's answer sent as application/json). */
export async function saveJson(value: unknown, path: string): Promise<{ bytes: number; fileName: null }> {
  if (value === null || value === undefined)
    throw validationError("file", "is required: a JSON body must be Kutt's export, not empty or null");
  await mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  return { bytes: await Bun.write(path, JSON.stringify(value)), fileName: null };
}

// Through a Response: the request's own stream may already be claimed (locked) by the framework's reader.
const bodyStream = (request: Request) => Readable.fromWeb(new Response(request.body).body as never);

async function copyCapped(source: Readable, path: string, max: number): Promise<number> {
  let bytes = 0;
  const counted = async function* () {
    for await (const chunk of source) {
      bytes += (chunk as Uint8Array).length;
      if (bytes > max) throw tooLarge(max);
      yield chunk;
    }
  };
  await pipeline(counted, createWriteStream(path));
  if (bytes === 0) throw validationError("file", "is empty");
  return bytes;
}

function receiveMultipart(request: Request, type: string, path: string, max: number): Promise<{ bytes: number; fileName: string | null }> {
  return new Promise((resolve, reject) => {
    let busboy: Busboy.Busboy;
    try {
      busboy = Busboy({ headers: { "content-type": type }, limits: { files: 1, fileSize: max + 1 } });
    } catch {
      reject(validationError("file", "the multipart body has no boundary"));
      return;
    }
    let saving: Promise<{ bytes: number; fileName: string | null }> | null = null;
    busboy.on("file", (name, stream, info) => {
      if (name !== "file") {
        stream.resume();
        return;
      }
      saving = copyCapped(stream, path, max).then((bytes) => ({ bytes, fileName: info.filename ?? null }));
      saving.catch(() => stream.resume());
    });
    busboy.on("error", () => reject(validationError("file", "the multipart body could not be read")));
    busboy.on("close", () => {
      if (!saving) reject(validationError("file", "is required: a multipart part named file"));
      else saving.then(resolve, reject);
    });
    bodyStream(request).pipe(busboy);
  });
}

/** Whether the file is JSON (Kutt's answer) rather than CSV: its first non-blank character. */
export async function isJsonFile(path: string): Promise<boolean> {
  const head = new TextDecoder().decode(await Bun.file(path).slice(0, 4096).arrayBuffer());
  return /^\uFEFF?\s*[[{]/.test(head);
}

export interface FileRow {
  /** The data row's number: 1 is the first row after the header (the first item of a JSON array). */
  row: number;
  cells?: Record<string, string>;
  record?: ImportRecord;
}

const csvProblem = (err: unknown): AppError => {
  const e = err as { code?: string; message?: string; lines?: number };
  if (e instanceof TypeError || /encoded data was not valid|invalid.*utf-?8/i.test(String(e.message))) {
    return validationError("file", "is not UTF-8 text: save it as UTF-8 (CSV UTF-8 in Excel) and import it again");
  }
  if (err instanceof AppError) return err;
  return validationError(
    "file",
    `is not a CSV file we can read: ${e.message ?? String(err)}${e.lines && !String(e.message).includes("line") ? ` (line ${e.lines})` : ""}`,
  );
};

const GC_EVERY_ROWS = 50_000;

/** The rows of a CSV file (headers normalised), from data row `from` + 1 on; the header row via `onHeaders`. */
export async function* csvRows(path: string, from = 0, onHeaders?: (headers: string[]) => void): AsyncGenerator<FileRow> {
  const text = Bun.file(path)
    .stream()
    .pipeThrough(new TextDecoderStream("utf-8", { fatal: true }));
  const parser = parse({
    columns: (header: string[]) => {
      const names = header.map(normaliseHeader);
      onHeaders?.(names);
      return names;
    },
    bom: true,
    skip_empty_lines: true,
    trim: false,
    relax_column_count_less: true,
    max_record_size: 1024 * 1024,
  });
  const input = Readable.fromWeb(text as never);
  input.on("error", (err) => parser.destroy(err));
  input.pipe(parser);
  let row = 0;
  try {
    for await (const cells of parser) {
      row++;
      // Every row is garbage a moment later, but the engine sizes its collections to the whole process's heap
      // (Postgres in WASM, ClickHouse): left alone, reading a 200 MB file grew the process by a gigabyte. A
      // full collection every 50,000 rows (some 10 MB of text) keeps it within about 60 MB, at ~1% of the time.
      if (row % GC_EVERY_ROWS === 0) Bun.gc(true);
      if (row > from) yield { row, cells: cells as Record<string, string> };
    }
  } catch (err) {
    throw csvProblem(err);
  } finally {
    input.destroy();
  }
}

/** The links of a Kutt JSON file, read whole (it is held to KUTT_MAX_BYTES). */
export async function* kuttRows(path: string, from = 0): AsyncGenerator<FileRow> {
  const file = Bun.file(path);
  if (file.size > KUTT_MAX_BYTES) throw tooLarge(KUTT_MAX_BYTES);
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(await file.arrayBuffer()));
  } catch (err) {
    throw err instanceof TypeError ? csvProblem(err) : validationError("file", `is not valid JSON: ${(err as Error).message}`);
  }
  const items = kuttItems(doc);
  if (typeof items === "string") throw validationError("file", items);
  for (let i = from; i < items.length; i++) yield { row: i + 1, record: readKuttLink(items[i]) };
}
