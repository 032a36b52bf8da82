// POST /links/bulk: partial success (201 / 207 / 422), a per-tier batch maximum, a 60-second cap (408),
// multi-row inserts for speed, and metadata extraction in the background.
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { Value } from "@sinclair/typebox/value";
import { AppError, validationError } from "../errors";
import { TIER_LIMITS, type Tier } from "../tiers";
import { emitEvent, emitEvents } from "../events/bus";
import { isUniqueViolation } from "../storage/postgres/errors";
import type { AccountRecord } from "../http/auth";
import { CreateLinkBody, type CreateLinkInput } from "./model";
import { prepareLink } from "./prepare";
import { generateShortCode } from "./codes";
import { fetchPageMetadata } from "./metadata";
import { insertWithCode, serializeLinks, type LinksDeps } from "./service";
import * as repo from "./repository";

const checkItem = TypeCompiler.Compile(CreateLinkBody);
const CHUNK = 500;

type Prepared = Awaited<ReturnType<typeof prepareLink>> & { index: number };
interface Failure {
  index: number;
  url: string;
  error: string;
  error_type: string;
}

const errorType = (err: unknown) => {
  if (!(err instanceof AppError)) return "internal";
  return (
    (
      { VALIDATION_ERROR: "validation", TIER_UPGRADE_REQUIRED: "tier", ALIAS_TAKEN: "conflict", NOT_FOUND: "not_found" } as Record<
        string,
        string
      >
    )[err.code] ?? "error"
  );
};

function itemError(item: unknown, index: number): AppError | null {
  const first = checkItem.Errors(item).First();
  if (!first) return null;
  const field = `body.${index}` + (first.path ? first.path.replaceAll("/", ".") : "");
  return validationError(field, first.message);
}

export async function bulkCreateLinks(deps: LinksDeps & { bulkTimeoutMs?: number }, account: AccountRecord, items: unknown[]) {
  const max = TIER_LIMITS[account.tier as Tier].bulkBatchMax;
  if (items.length > max) throw validationError("body", `at most ${max} links per request on the ${account.tier} tier`, { max });
  const deadline = Date.now() + (deps.bulkTimeoutMs ?? 60_000);
  const failed: Failure[] = [];
  const prepared: Prepared[] = [];
  let timedOut = false;

  for (const [index, item] of items.entries()) {
    if (Date.now() > deadline) {
      timedOut = true;
      break;
    }
    const url = typeof (item as { url?: unknown })?.url === "string" ? (item as { url: string }).url : "";
    try {
      // Unknown fields are dropped, as POST /links drops them.
      const clean = Value.Clean(CreateLinkBody, item);
      const invalid = itemError(clean, index);
      if (invalid) throw invalid;
      prepared.push({ ...(await prepareLink(deps.pg.db, account, clean as CreateLinkInput, `body.${index}.`)), index });
    } catch (err) {
      failed.push({ index, url, error: (err as Error).message, error_type: errorType(err) });
    }
  }

  const createdRows: { index: number; row: repo.LinkRow }[] = [];
  for (let i = 0; i < prepared.length && !timedOut; i += CHUNK) {
    if (Date.now() > deadline) {
      timedOut = true;
      break;
    }
    await insertChunk(deps, prepared.slice(i, i + CHUNK), createdRows, failed);
  }

  const links = await serializeLinks(
    deps,
    deps.pg.db,
    createdRows.map((c) => c.row),
  );
  const created = createdRows.map((c, i) => ({
    index: c.index,
    link: { id: links[i].id, short_url: links[i].short_url, original_url: links[i].original_url, short_code: links[i].short_code },
  }));
  failed.sort((a, b) => a.index - b.index);
  const result = { created, failed, total_requested: items.length, success_count: created.length, failure_count: failed.length };

  await emitEvents(deps.pg.db, account.id, "link.created", links);
  await emitEvent(deps.pg.db, account.id, "bulk_import.completed", {
    total_requested: items.length,
    success_count: created.length,
    failure_count: failed.length,
    timed_out: timedOut,
    link_ids: created.map((c) => c.link.id),
  });
  await deps.linkCache.invalidateMany(createdRows.map(({ row }) => ({ domainId: row.domainId, code: row.shortCode })));
  fillMetadataInBackground(
    deps,
    createdRows.map((c) => c.row).filter((r) => r.title === null || r.description === null),
  );

  if (timedOut)
    throw new AppError(
      "REQUEST_TIMEOUT",
      `The batch exceeded the ${Math.round((deps.bulkTimeoutMs ?? 60_000) / 1000)}-second processing cap; ${created.length} link(s) were created and kept`,
      result,
    );
  return { status: created.length === 0 ? 422 : failed.length === 0 ? 201 : 207, result };
}

async function insertChunk(deps: LinksDeps, chunk: Prepared[], created: { index: number; row: repo.LinkRow }[], failed: Failure[]) {
  try {
    const rows = await deps.pg.db.transaction((tx) =>
      repo.insertLinks(
        tx,
        chunk.map(({ index, ...p }) => ({ ...p, shortCode: p.shortCode ?? generateShortCode() })),
      ),
    );
    rows.forEach((row, i) => created.push({ index: chunk[i].index, row }));
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    // Some code in the chunk is taken: fall back to one insert per item to find which.
    for (const { index, ...p } of chunk) {
      try {
        created.push({ index, row: await insertWithCode(deps.pg.db, p) });
      } catch (e) {
        failed.push({ index, url: p.originalUrl, error: (e as Error).message, error_type: errorType(e) });
      }
    }
  }
}

function fillMetadataInBackground(deps: LinksDeps, rows: repo.LinkRow[]) {
  if (!rows.length) return;
  const queue = [...rows];
  const worker = async () => {
    for (let row = queue.shift(); row; row = queue.shift()) {
      const meta = await fetchPageMetadata(row.originalUrl, deps.outbound);
      const patch: Partial<repo.NewLink> = {};
      if (row.title === null && meta.title) patch.title = meta.title;
      if (row.description === null && meta.description) patch.description = meta.description;
      if (row.ogImage === null && meta.image) patch.ogImage = meta.image;
      if (Object.keys(patch).length) await repo.updateLinkRow(deps.pg.db, row.id, patch).catch(() => {});
    }
  };
  void Promise.all(Array.from({ length: 8 }, worker));
}
