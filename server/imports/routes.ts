// Imports: POST /imports (the file streamed, checked whole, then run in the background), GET /imports,
// GET /imports/{id}; links:write / links:read.
import { Elysia, t } from "elysia";
import { API_PREFIX } from "../http/api-prefix";
import type { Auth } from "../http/auth";
import { Envelope } from "../http/envelope";
import { operation } from "../openapi/operation";
import { CreateImportQuery, Import, ImportIdParams } from "./model";
import { createImport, getImport, listImports, type ImportsDeps } from "./service";

export function importsRoutes(deps: ImportsDeps & { auth: Auth; onCreated: () => void }) {
  return new Elysia({ prefix: API_PREFIX })
    .use(deps.auth)
    .post(
      "/imports",
      async ({ account, request, query, body }) => {
        // A JSON body was read, parsed and checked by the input guard before any route's parser: it comes as its
        // value (null when it was empty or `null`); any other body is still unread.
        const created = new Envelope(await createImport(deps, account, request.bodyUsed ? { json: body } : request, query), 202);
        deps.onCreated();
        return created;
      },
      {
        scope: "links:write",
        query: CreateImportQuery,
        // The handler streams the body to disk itself (serve.ts leaves it unread for this route).
        parse: () => null,
        detail: operation({
          id: "createImport",
          tag: "Imports",
          summary: "Import links (and their history) from another product",
          description:
            "The file as the raw body or as a multipart part named `file`: a Bitly, Dub, Shlink, YOURLS (yourls_url or yourls_log) or generic CSV, our own links or clicks export, Kutt's JSON, or Plausible's full export (the zip of its imported_*.csv files, with `link_id` naming the link whose reports get its days: imported in the request, answered completed; at most 1 GB once unzipped). At most 256 MB (a JSON file 64 MB) and the tier's `import_rows_max` rows. The whole file is read before the answer: a file we cannot read (not UTF-8, a malformed CSV, unknown columns, too many rows) is refused with 400 and nothing is created. The rows are then imported in the background: follow `GET /imports/{id}`. See docs/moving.md.",
          body: {
            description: "The export file",
            content: {
              "text/csv": null,
              "application/json": null,
              "application/zip": null,
              "multipart/form-data": null,
              "application/octet-stream": null,
            },
          },
          responses: { 202: { description: "The import, queued", data: Import } },
          errors: ["PAYLOAD_TOO_LARGE", "NOT_FOUND"],
        }),
      },
    )
    .get("/imports", ({ account }) => listImports(deps.pg, account.id), {
      scope: "links:read",
      detail: operation({
        id: "listImports",
        tag: "Imports",
        summary: "List imports",
        responses: { 200: { description: "The account's last 50 imports, newest first", data: t.Array(Import) } },
      }),
    })
    .get("/imports/:id", ({ account, params }) => getImport(deps.pg, account.id, params.id), {
      scope: "links:read",
      params: ImportIdParams,
      detail: operation({
        id: "getImport",
        tag: "Imports",
        summary: "Get an import's progress",
        responses: { 200: { description: "The import: status, counts and the first errors", data: Import } },
        errors: ["NOT_FOUND"],
      }),
    });
}
