// The imports API's shapes (docs/moving.md).
import { t, type Static } from "elysia";
import { SOURCE_NAMES } from "./sources/record";

export const IMPORT_STATUSES = ["queued", "running", "completed", "failed"] as const;

export const CreateImportQuery = t.Object({
  // Plain strings checked by the service: Elysia would fill an optional enum with its first value.
  source: t.Optional(
    t.String({
      description: `The file's format, one of ${SOURCE_NAMES.join(", ")}; detected from its header row (or JSON for Kutt) when left out`,
    }),
  ),
  on_conflict: t.Optional(
    t.String({
      description:
        "`skip` (default) or `rename`: what to do with a short code that is taken (or one we do not accept as an alias): skip the row, or create the link under a new code",
    }),
  ),
  link_id: t.Optional(
    t.String({
      format: "uuid",
      description: "The link whose reports get the imported days: required for a Plausible export (a zip), and only for one",
    }),
  ),
  domain: t.Optional(
    t.String({
      maxLength: 253,
      description:
        "A verified custom domain of the account to put every link on. Without it, a link on the source's shared domain (bit.ly, dub.sh…) goes to this server's own host and one on a custom domain to the account's domain of that name, or fails if there is none",
    }),
  ),
});
export type CreateImportQuery = Static<typeof CreateImportQuery>;

export const ImportIdParams = t.Object({ id: t.String({ format: "uuid" }) });

export const ImportError = t.Object(
  {
    row: t.Integer({ description: "The data row (1 is the first row after the header)" }),
    field: t.String({ description: "The column (or link field) at fault" }),
    message: t.String(),
  },
  { $id: "ImportError", additionalProperties: false },
);

export const Import = t.Object(
  {
    id: t.String({ format: "uuid" }),
    source: t.UnionEnum([...SOURCE_NAMES]),
    status: t.UnionEnum([...IMPORT_STATUSES], { description: "queued, running, completed, or failed (the file could not be read)" }),
    on_conflict: t.UnionEnum(["skip", "rename"]),
    domain: t.Union([t.String(), t.Null()]),
    file_name: t.Union([t.String(), t.Null()]),
    total: t.Integer({ description: "Data rows in the file (a Plausible export: in all its CSV files)" }),
    processed: t.Integer({ description: "Rows done so far" }),
    created: t.Integer({ description: "Links created" }),
    renamed: t.Integer({ description: "Of the created links, those under a new code (on_conflict=rename)" }),
    skipped: t.Integer({ description: "Rows whose link exists already (imported before from this source) or whose code is taken" }),
    failed: t.Integer({ description: "Rows refused (the errors say why)" }),
    clicks: t.Integer({ description: "Raw clicks imported (YOURLS' log, our clicks export)" }),
    errors: t.Array(ImportError, { description: "The first 100 rows skipped or refused and why" }),
    created_at: t.String({ format: "date-time" }),
    started_at: t.Union([t.String({ format: "date-time" }), t.Null()]),
    finished_at: t.Union([t.String({ format: "date-time" }), t.Null()]),
  },
  { $id: "Import", additionalProperties: false },
);
export type ImportJson = Static<typeof Import>;
