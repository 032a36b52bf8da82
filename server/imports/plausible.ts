// Plausible's full export into one link's imported daily aggregates. The zip is read twice, entry by
// entry as streams: once to check everything (the files, their columns, every row, the tier's rows
// limit) before anything is stored, then to store the rows in batches. Storing is idempotent (the
// table replaces a row with the same link, kind, day and dimension), so a file sent again, or a
// later export overlapping an earlier one, creates nothing twice; a failure half-way is mended by
// sending the file again. Small enough to run in the request: the answer is the finished import.
import { parse } from "csv-parse";
import type yauzl from "yauzl";
import { validationError } from "../errors";
import { TIER_LIMITS, type Tier } from "../tiers";
import type { AccountRecord } from "../accounts/principal";
import type { Clickhouse } from "../storage/clickhouse/client";
import type { Postgres } from "../storage/postgres/client";
import { openZip, type ZipArchive } from "./zip";
import {
  PLAUSIBLE_REQUIRED,
  plausibleKindOf,
  readPlausibleRow,
  requiredColumns,
  type DailyFigures,
  type PlausibleKind,
} from "./sources/plausible";
import * as repo from "./repository";

const BATCH = 10_000;

/** Whether the file is a zip archive (its local file header signature, PK\3\4). */
export async function isZipFile(path: string): Promise<boolean> {
  const head = new Uint8Array(await Bun.file(path).slice(0, 4).arrayBuffer());
  return head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04;
}

interface KindEntry {
  kind: PlausibleKind;
  entry: yauzl.Entry;
}

/** The export's files by kind; a 400 when it is not one. */
function exportEntries(zip: ZipArchive): KindEntry[] {
  const found = zip.entries.flatMap((entry) => {
    const kind = plausibleKindOf(entry.fileName);
    return kind ? [{ kind, entry }] : [];
  });
  if (!found.length)
    throw validationError(
      "file",
      `is not a Plausible export: no imported_<kind>_<from>_<to>.csv in the zip (found: ${zip.entries
        .slice(0, 10)
        .map((e) => e.fileName)
        .join(", ")})`,
    );
  const seen = new Set<PlausibleKind>();
  for (const f of found) {
    if (seen.has(f.kind)) throw validationError("file", `has two imported_${f.kind} files; export one site at a time`);
    seen.add(f.kind);
  }
  if (!seen.has(PLAUSIBLE_REQUIRED))
    throw validationError("file", `has no imported_${PLAUSIBLE_REQUIRED}_<from>_<to>.csv, the file with the daily totals`);
  return found;
}

/** The rows of one file, read by its kind; a 400 naming the file, the row and the column at fault. */
async function* entryRows(zip: ZipArchive, { kind, entry }: KindEntry): AsyncGenerator<DailyFigures> {
  const name = entry.fileName.split("/").pop()!;
  const parser = parse({
    columns: (header: string[]) => {
      const names = header.map((h) =>
        h
          .replace(/^\uFEFF/, "")
          .trim()
          .toLowerCase(),
      );
      const missing = requiredColumns(kind).filter((c) => !names.includes(c));
      if (missing.length) throw validationError("file", `${name} has no column ${missing.join(", ")} (found: ${names.join(", ")})`);
      return names;
    },
    skip_empty_lines: true,
    relax_column_count_less: true,
    max_record_size: 64 * 1024,
  });
  const stream = await zip.open(entry);
  stream.on("error", (err) => parser.destroy(err));
  stream.pipe(parser);
  let row = 0;
  try {
    for await (const cells of parser) {
      row++;
      const figures = readPlausibleRow(kind, cells as Record<string, string>);
      if (typeof figures === "string") throw validationError("file", `${name}, row ${row}: ${figures}`, { row });
      yield figures;
    }
  } catch (err) {
    if ((err as { code?: string }).code === "VALIDATION_ERROR") throw err;
    throw validationError("file", `${name} is not a CSV file we can read: ${(err as Error).message}`);
  } finally {
    stream.destroy();
  }
}

export interface PlausibleImportDeps {
  pg: Postgres;
  ch: Clickhouse;
}

/** Checks the export whole, then stores it as the link's imported days; the import's row, completed. */
export async function importPlausible(
  deps: PlausibleImportDeps,
  account: AccountRecord,
  linkId: string,
  path: string,
  id: string,
  fileName: string | null,
): Promise<repo.ImportRow> {
  const tier = account.tier as Tier;
  const max = TIER_LIMITS[tier].importRowsMax;
  const zip = await openZip(path);
  try {
    const files = exportEntries(zip);
    let total = 0;
    for (const f of files)
      for await (const _ of entryRows(zip, f))
        if (++total > max)
          throw validationError(
            "file",
            `has more than ${max.toLocaleString("en")} rows, the most one import takes on the ${tier} tier; split it or upgrade`,
            { max_rows: max },
          );
    const started = new Date();
    const stamp = started.toISOString().replace("T", " ").replace("Z", "");
    let batch: repo.ImportedDailyRow[] = [];
    for (const f of files)
      for await (const r of entryRows(zip, f)) {
        batch.push({ ...r, account_id: account.id, link_id: linkId, source: "plausible", import_id: id, imported_at: stamp });
        if (batch.length < BATCH) continue;
        await repo.insertImportedDaily(deps.ch, batch);
        batch = [];
      }
    await repo.insertImportedDaily(deps.ch, batch);
    return await repo.insertImport(deps.pg.db, {
      id,
      accountId: account.id,
      source: "plausible",
      onConflict: "skip",
      domain: null,
      fileName: fileName?.slice(0, 255) ?? null,
      total,
      position: total,
      status: "completed",
      startedAt: started,
      finishedAt: new Date(),
    });
  } finally {
    zip.close();
  }
}
