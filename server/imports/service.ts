// Imports: a file received and checked whole before anything is created (POST /imports), then its rows
// turned into links and clicks in batches by the job (job.ts), each batch one transaction with the
// import's progress, so a kill -9 resumes at the first row not done and nothing is created twice.
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { AppError, notFound, validationError } from "../errors";
import { TIER_LIMITS, type Tier } from "../tiers";
import type { AccountRecord } from "../accounts/principal";
import { listAccountDomains } from "../domains/read";
import type { Postgres } from "../storage/postgres/client";
import type { Clickhouse } from "../storage/clickhouse/client";
import { emitEvent } from "../webhooks/outbox";
// An import creates links as bulk create does: links/imported.ts, the links feature's module for it.
import { createImportedLinks, forgetImportedCodes, raiseImportedClicks, type ImportedLinkInput, type LinksDeps } from "../links/imported";
import { csvRows, isJsonFile, kuttRows, receiveUpload, saveJson, type FileRow } from "./file";
import {
  csvFormatFor,
  SOURCE_NAMES,
  type ClickRecord,
  type ImportRecord,
  type LinkRecord,
  type SourceFormat,
  type SourceName,
} from "./sources";
import * as repo from "./repository";
import { importPlausible, isZipFile } from "./plausible";
import { checkedRows, rowsPathOf, rowsWriter, type RowsWriter } from "./rows";
import { resolveReportScope } from "../reports/scope";
import type { CreateImportQuery, ImportJson } from "./model";

export interface ImportsDeps extends LinksDeps {
  dataDir: string;
}

/** Rows per transaction: 1,000 links are one multi-row insert of about 35,000 parameters (the limit is 65,535). */
const BATCH = 1000;
const MAX_ERRORS = 100;

export const uploadPath = (dataDir: string, id: string) => join(dataDir, "imports", `${id}.upload`);

export function toImportJson(r: repo.ImportRow): ImportJson {
  return {
    id: r.id,
    source: r.source as SourceName,
    status: r.status as ImportJson["status"],
    on_conflict: r.onConflict as ImportJson["on_conflict"],
    domain: r.domain,
    file_name: r.fileName,
    total: r.total,
    processed: r.position,
    created: r.created,
    renamed: r.renamed,
    skipped: r.skipped,
    failed: r.failed,
    clicks: r.clicks,
    errors: r.errors,
    created_at: r.createdAt.toISOString(),
    started_at: r.startedAt?.toISOString() ?? null,
    finished_at: r.finishedAt?.toISOString() ?? null,
  };
}

/** The file's rows from data row `from` + 1 on, each read by its format. */
async function* records(path: string, format: SourceFormat | "kutt", from = 0): AsyncGenerator<FileRow & { record: ImportRecord }> {
  if (format === "kutt") {
    for await (const r of kuttRows(path, from)) yield r as FileRow & { record: ImportRecord };
    return;
  }
  for await (const r of csvRows(path, from)) yield { ...r, record: format.read(r.cells!) };
}

/**
 * The file's format and its number of data rows, reading it whole once; an error when it is not one we read.
 * A CSV's rows go to `keep` as what they mean (the job reads them from there: rows.ts).
 */
async function scan(
  path: string,
  named: SourceName | undefined,
  tier: Tier,
  keep: RowsWriter,
): Promise<{ format: SourceFormat | "kutt"; total: number }> {
  const max = TIER_LIMITS[tier].importRowsMax;
  const tooMany = () =>
    validationError(
      "file",
      `has more than ${max.toLocaleString("en")} rows, the most one import takes on the ${tier} tier; split it or upgrade`,
      {
        max_rows: max,
      },
    );
  if ((named === undefined || named === "kutt") && (await isJsonFile(path))) {
    let total = 0;
    for await (const _ of kuttRows(path)) if (++total > max) throw tooMany();
    return { format: "kutt", total };
  }
  if (named === "kutt") throw validationError("file", "is not JSON: Kutt's links come as the JSON of GET /api/v2/links");
  let headers: string[] = [];
  let format: SourceFormat | null = null;
  let total = 0;
  for await (const r of csvRows(path, 0, (h) => (headers = h))) {
    format ??= csvFormatFor(headers, named);
    if (!format) break;
    if (++total > max) throw tooMany();
    keep.add(format.read(r.cells!));
  }
  format ??= csvFormatFor(headers, named);
  if (!format)
    throw validationError(
      "file",
      named
        ? `does not have the columns of a ${named} export (found: ${headers.join(", ") || "none"})`
        : `has no column we recognise (found: ${headers.join(", ") || "none"}); name the destination column url`,
    );
  if (total === 0) throw validationError("file", "has no data rows");
  return { format, total };
}

export async function createImport(
  deps: ImportsDeps,
  account: AccountRecord,
  request: Request | { json: unknown },
  q: CreateImportQuery,
): Promise<ImportJson> {
  if (q.source !== undefined && !(SOURCE_NAMES as readonly string[]).includes(q.source))
    throw validationError("query.source", `must be one of ${SOURCE_NAMES.join(", ")}`);
  if (q.on_conflict !== undefined && q.on_conflict !== "skip" && q.on_conflict !== "rename")
    throw validationError("query.on_conflict", "must be skip or rename");
  if (q.domain !== undefined) await domainIdFor(deps, account.id, q.domain.toLowerCase(), "query.domain");
  // The link first: another account's (or an unknown) link is 404 before a byte is read.
  const linkId = q.link_id === undefined ? undefined : await importLinkId(deps, account.id, q.link_id);
  const id = crypto.randomUUID();
  const path = uploadPath(deps.dataDir, id);
  const { fileName } = request instanceof Request ? await receiveUpload(request, path) : await saveJson(request.json, path);
  const rows = rowsWriter(path);
  try {
    const zip = request instanceof Request && (await isZipFile(path));
    if (q.source === "plausible" || zip) {
      if (!zip) throw validationError("file", "is not a zip archive: a Plausible export is the zip of its imported_*.csv files");
      if (!linkId) throw validationError("query.link_id", "is required for a Plausible export: the link whose reports get its days");
      const done = await importPlausible(deps, account, linkId, path, id, fileName);
      await rm(path, { force: true });
      return toImportJson(done);
    }
    if (linkId) throw validationError("query.link_id", "is for a Plausible export (a zip) only");
    const { format, total } = await scan(path, q.source as SourceName | undefined, account.tier as Tier, rows);
    await (format === "kutt" ? rows.discard() : rows.finish());
    const row = await repo.insertImport(deps.pg.db, {
      id,
      accountId: account.id,
      source: format === "kutt" ? "kutt" : format.source,
      onConflict: q.on_conflict === "rename" ? "rename" : "skip",
      domain: q.domain?.toLowerCase() ?? null,
      fileName: fileName?.slice(0, 255) ?? null,
      total,
    });
    return toImportJson(row);
  } catch (err) {
    await rows.discard();
    await Promise.all([rm(path, { force: true }), rm(rowsPathOf(path), { force: true })]);
    throw err;
  }
}

export async function getImport(pg: Postgres, accountId: string, id: string) {
  const row = await repo.findImport(pg.db, accountId, id);
  if (!row) throw notFound("Import");
  return toImportJson(row);
}

export const listImports = async (pg: Postgres, accountId: string) => (await repo.listImports(pg.db, accountId, 50)).map(toImportJson);

/** The link a Plausible export goes into; 404 naming query.link_id when the account has no such link. */
async function importLinkId(deps: ImportsDeps, accountId: string, linkId: string) {
  try {
    return (await resolveReportScope(deps.pg.db, accountId, { linkId }, 0)).link!.id;
  } catch (err) {
    if (err instanceof AppError && err.code === "NOT_FOUND") throw new AppError("NOT_FOUND", "Link not found", { field: "query.link_id" });
    throw err;
  }
}

async function domainIdFor(deps: ImportsDeps, accountId: string, name: string, field: string) {
  const d = (await listAccountDomains(deps.pg.db, accountId)).find((x) => x.name === name && x.verifiedAt);
  if (!d) throw new AppError("NOT_FOUND", `Domain ${name} is not a verified domain of the account`, { field });
  return d.id;
}

/** One round of the job: every unfinished import, batch by batch (a crashed process's too). */
export async function runPendingImports(
  deps: ImportsDeps,
  accounts: (id: string) => Promise<AccountRecord | undefined>,
  stopping?: AbortSignal,
) {
  // The files under DATA_DIR/imports are this instance's imports (another instance's file is on its own disk).
  const held = await readdir(join(deps.dataDir, "imports")).catch(() => [] as string[]);
  const ids = held.flatMap((f) => (/^[0-9a-f-]{36}\.upload$/.test(f) ? [f.slice(0, 36)] : []));
  for (const imp of await repo.pendingImports(deps.pg.db, ids)) {
    if (stopping?.aborted) return;
    const account = await accounts(imp.accountId);
    if (!account) continue;
    await runImport(deps, account, imp, stopping);
  }
}

async function runImport(deps: ImportsDeps, account: AccountRecord, imp: repo.ImportRow, stopping?: AbortSignal) {
  const path = uploadPath(deps.dataDir, imp.id);
  if (!(await Bun.file(path).exists())) return; // finished by another round meanwhile
  if (imp.status === "queued") await repo.updateImport(deps.pg.db, imp.id, { status: "running", startedAt: new Date() });
  // The rows as checked on upload (rows.ts); the upload itself when they were not kept (a Kutt file).
  const kept = rowsPathOf(path);
  const rows = (await Bun.file(kept).exists())
    ? checkedRows(kept, imp.position)
    : records(path, imp.source === "kutt" ? "kutt" : await formatOf(path, imp.source as SourceName), imp.position);
  const domains = new Map((await listAccountDomains(deps.pg.db, account.id)).filter((d) => d.verifiedAt).map((d) => [d.name, d.id]));
  let batch: (FileRow & { record: ImportRecord })[] = [];
  let position = imp.position;
  try {
    for await (const r of rows) {
      batch.push(r);
      if (batch.length < BATCH) continue;
      const next = await runBatch(deps, account, imp, domains, position, batch);
      if (next === null) return; // another instance moved it on
      position = next;
      batch = [];
      if (stopping?.aborted) return;
      // Between batches, whatever waits for the database (a redirect's miss, GET /imports/{id}) goes first.
      await new Promise((resolve) => setImmediate(resolve));
    }
    await runBatch(deps, account, imp, domains, position, batch, true);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    // The file was checked whole when it came, so only a changed file gets here.
    await repo.updateImport(deps.pg.db, imp.id, {
      status: "failed",
      finishedAt: new Date(),
      errors: [{ row: position + 1, field: "file", message: err.message }],
    });
  }
  await Promise.all([rm(kept, { force: true }), rm(path, { force: true })]);
}

async function formatOf(path: string, source: SourceName): Promise<SourceFormat> {
  let headers: string[] = [];
  for await (const _ of csvRows(path, 0, (h) => (headers = h))) break;
  const format = csvFormatFor(headers, source);
  if (!format) throw new Error(`import file ${path} no longer has the columns of ${source}`);
  return format;
}

/** One batch in one transaction with the import's progress; the new position, or null when another instance had done it. */
async function runBatch(
  deps: ImportsDeps,
  account: AccountRecord,
  imp: repo.ImportRow,
  domains: Map<string, string>,
  position: number,
  batch: (FileRow & { record: ImportRecord })[],
  last = false,
): Promise<number | null> {
  const clicks = batch.filter((b): b is FileRow & { record: ClickRecord } => b.record.kind === "click");
  const clickLinks = clicks.length
    ? await repo.findOrigins(deps.pg.db, account.id, imp.source, [...new Set(clicks.map((c) => c.record.originKey))])
    : new Map();
  const clickRows = clicks.flatMap(({ record: c }) => {
    const linkId = clickLinks.get(c.originKey);
    return linkId ? [toClickRow(account.id, linkId, imp, c)] : [];
  });
  // Clicks first: the token makes a replay of this batch after a crash a no-op, and the progress below
  // commits only once they are stored.
  await repo.insertImportedClicks(deps.ch, clickRows, `import:${imp.id}:${position}`);

  const outcome = await deps.pg.db.transaction(async (tx) => {
    const locked = await repo.lockImport(tx, imp.id);
    if (!locked || locked.position !== position || (locked.status !== "running" && locked.status !== "queued")) return null;
    const errors: { row: number; field: string; message: string }[] = [];
    let skipped = 0;
    let failed = 0;
    for (const b of batch) {
      if (b.record.kind === "problem") {
        failed++;
        errors.push({ row: b.row, field: b.record.field, message: b.record.message });
      } else if (b.record.kind === "click" && !clickLinks.has(b.record.originKey)) {
        failed++;
        errors.push({
          row: b.row,
          field: "short_code",
          message: `no link imported from ${imp.source} has the code of ${b.record.originKey}; import the links first`,
        });
      }
    }
    const links = batch.filter((b): b is FileRow & { record: LinkRecord } => b.record.kind === "link");
    const known = await repo.findOrigins(
      tx,
      account.id,
      imp.source,
      links.map((l) => l.record.originKey),
    );
    const items: (ImportedLinkInput & { key: string })[] = [];
    const seen = new Set<string>();
    const raised: { id: string; total: number }[] = [];
    for (const { row, record } of links) {
      const existing = known.get(record.originKey);
      if (existing || seen.has(record.originKey)) {
        skipped++;
        if (existing && record.importedClicks) raised.push({ id: existing, total: record.importedClicks });
        continue;
      }
      seen.add(record.originKey);
      const domainName = imp.domain ?? record.domain;
      const domainId = domainName ? domains.get(domainName) : undefined;
      if (domainName && !domainId) {
        failed++;
        errors.push({
          row,
          field: "domain",
          message: `${domainName} is not a verified domain of the account: add and verify it (POST /domains) first, or import with domain=`,
        });
        continue;
      }
      items.push({
        row,
        key: record.originKey,
        importedClicks: record.importedClicks,
        input: { ...record.input, ...(record.code ? { custom_alias: record.code } : {}), ...(domainId ? { domain_id: domainId } : {}) },
      });
    }
    await raiseImportedClicks(tx, account.id, raised);
    const result = items.length
      ? await createImportedLinks(deps, tx, account, items, imp.onConflict === "rename" ? "rename" : "skip")
      : { created: [], failed: [], rows: [] };
    const keyOf = new Map(items.map((i) => [i.row, i.key]));
    await repo.insertOrigins(tx, {
      accountId: account.id,
      source: imp.source,
      importId: imp.id,
      rows: result.created.map((c) => ({ originKey: keyOf.get(c.row)!, linkId: c.linkId })),
    });
    for (const f of result.failed) {
      if (f.conflict) skipped++;
      else failed++;
      errors.push({ row: f.row, field: f.field, message: f.message });
    }
    errors.sort((a, b) => a.row - b.row);
    const next = position + batch.length;
    const totals = {
      created: locked.created + result.created.length,
      renamed: locked.renamed + result.created.filter((c) => c.renamed).length,
      skipped: locked.skipped + skipped,
      failed: locked.failed + failed,
      clicks: locked.clicks + clickRows.length,
    };
    const done = last || next >= locked.total;
    await repo.updateImport(tx, imp.id, {
      ...totals,
      position: next,
      errors: [...locked.errors, ...errors].slice(0, MAX_ERRORS),
      ...(done ? { status: "completed", finishedAt: new Date() } : {}),
    });
    if (done)
      await emitEvent(tx, account.id, "bulk_import.completed", {
        import_id: imp.id,
        source: imp.source,
        total: locked.total,
        ...totals,
        total_requested: locked.total,
        success_count: totals.created,
        failure_count: totals.failed,
        timed_out: false,
      });
    return { next, rows: result.rows };
  });
  if (!outcome) return null;
  await forgetImportedCodes(deps, outcome.rows);
  return outcome.next;
}

function toClickRow(accountId: string, linkId: string, imp: repo.ImportRow, c: ClickRecord): repo.ImportedClickRow {
  return {
    account_id: accountId,
    link_id: linkId,
    source: imp.source,
    click_key: c.clickKey,
    timestamp: c.timestamp.toISOString().replace("T", " ").replace("Z", ""),
    referrer: c.referrer,
    country_code: c.countryCode,
    device_type: c.deviceType,
    browser: c.browser,
    os: c.os,
    is_bot: c.isBot ? 1 : 0,
    import_id: imp.id,
  };
}
