// Links created by an import (server/imports): validated and inserted as POST /links/bulk does (the same
// schema, prepareLink and errors), but inside the caller's transaction, so the import's progress and the
// links it created commit together. A taken code is skipped or renamed, as the import asks.
import { Value } from "@sinclair/typebox/value";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { AppError, validationError } from "../errors";
import { emitEvents } from "../webhooks/outbox";
import { isUniqueViolation } from "../storage/postgres/errors";
import type { DbOrTx } from "../storage/postgres/client";
import type { AccountRecord } from "../accounts/principal";
import { CreateLinkBody, type CreateLinkInput } from "./model";
import { prepareLink } from "./prepare";
import { generateShortCode } from "./codes";
import { insertWithCode, serializeLinks, type LinksDeps } from "./service";
import * as repo from "./repository";

const checkItem = TypeCompiler.Compile(CreateLinkBody);

export interface ImportedLinkInput {
  /** The row of the file (reported back with each outcome). */
  row: number;
  /** What POST /links takes. */
  input: Record<string, unknown>;
  /** The other product's click total for the link. */
  importedClicks: number;
}
export interface ImportedLinkFailure {
  row: number;
  field: string;
  message: string;
  /** The short code was taken (or not one we accept) and the import skips such rows. */
  conflict: boolean;
}
export interface ImportedLink {
  row: number;
  linkId: string;
  shortCode: string;
  renamed: boolean;
}

type Prepared = Awaited<ReturnType<typeof prepareLink>> & { row: number; importedClicks: number };

const fieldOf = (err: unknown): string => {
  const details = err instanceof AppError ? (err.details as { fields?: { field: string }[]; field?: string } | undefined) : undefined;
  return (details?.fields?.[0]?.field ?? details?.field ?? "row").replace(/^body\./, "");
};
const messageOf = (err: unknown) => {
  const d = err instanceof AppError ? (err.details as { fields?: { message: string }[] } | undefined) : undefined;
  return d?.fields?.[0]?.message ?? (err as Error).message;
};
const isAliasProblem = (err: unknown) => err instanceof AppError && err.code === "VALIDATION_ERROR" && fieldOf(err) === "custom_alias";

/**
 * Creates the links of one batch of an import with `db` (the import's transaction). A code that is taken,
 * or that we would not accept as an alias, is skipped (`onConflict: "skip"`) or replaced by a generated
 * one (`"rename"`). Emits link.created for the created links, in the same transaction.
 */
export async function createImportedLinks(
  deps: LinksDeps,
  db: DbOrTx,
  account: AccountRecord,
  items: ImportedLinkInput[],
  onConflict: "skip" | "rename",
): Promise<{ created: ImportedLink[]; failed: ImportedLinkFailure[]; rows: repo.LinkRow[] }> {
  const failed: ImportedLinkFailure[] = [];
  const prepared: (Prepared & { renamed: boolean })[] = [];
  for (const item of items) {
    // Value.Clean drops unknown fields in place: the import's input object is its own, made per row.
    const clean = Value.Clean(CreateLinkBody, item.input);
    try {
      const first = checkItem.Errors(clean).First();
      if (first) throw validationError(first.path.replace(/^\//, "").replaceAll("/", ".") || "row", first.message);
      prepared.push({
        ...(await prepareLink(db, account, clean as CreateLinkInput, "")),
        row: item.row,
        importedClicks: item.importedClicks,
        renamed: false,
      });
    } catch (err) {
      if (onConflict === "rename" && isAliasProblem(err)) {
        const { custom_alias: _, ...rest } = clean as CreateLinkInput;
        try {
          prepared.push({
            ...(await prepareLink(db, account, rest, "")),
            row: item.row,
            importedClicks: item.importedClicks,
            renamed: true,
          });
          continue;
        } catch (again) {
          err = again;
        }
      }
      failed.push({ row: item.row, field: fieldOf(err), message: messageOf(err), conflict: isAliasProblem(err) });
    }
  }

  const created: ImportedLink[] = [];
  const rows: repo.LinkRow[] = [];
  const keep = (p: Prepared & { renamed: boolean }, row: repo.LinkRow) => {
    rows.push(row);
    created.push({ row: p.row, linkId: row.id, shortCode: row.shortCode, renamed: p.renamed });
  };
  const toNew = ({ row: _, renamed: __, ...p }: Prepared & { renamed: boolean }) => ({
    ...p,
    shortCode: p.shortCode ?? generateShortCode(),
  });
  if (!prepared.length) return { created, failed: failed.sort((a, b) => a.row - b.row), rows };
  try {
    const inserted = await db.transaction((sp) => repo.insertLinks(sp, prepared.map(toNew)));
    inserted.forEach((row, i) => keep(prepared[i], row));
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    // Some code is taken: one insert per link finds which.
    for (const p of prepared) {
      const { row: _, renamed: __, ...link } = p;
      try {
        keep(p, await insertWithCode(db, link));
      } catch (e) {
        if (!(e instanceof AppError && e.code === "ALIAS_TAKEN")) throw e;
        if (onConflict === "rename") keep({ ...p, renamed: true }, await insertWithCode(db, { ...link, shortCode: undefined }));
        else failed.push({ row: p.row, field: "short_code", message: `"${link.shortCode}" is already in use`, conflict: true });
      }
    }
  }
  await emitEvents(db, account.id, "link.created", await serializeLinks(deps, db, rows));
  failed.sort((a, b) => a.row - b.row);
  return { created, failed, rows };
}

/** After the import's transaction has committed: the new codes replace cached "unknown code" answers. */
export const forgetImportedCodes = (deps: Pick<LinksDeps, "linkCache">, rows: repo.LinkRow[]) =>
  deps.linkCache.invalidateMany(rows.map((row) => ({ domainId: row.domainId, code: row.shortCode })));

/** Links imported before, seen again in a later export: their imported totals can only grow. */
export const raiseImportedClicks = repo.raiseImportedClicks;
export type { LinksDeps };
