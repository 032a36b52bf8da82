// Raw export routes: GET /exports/clicks (analytics:read) and GET /exports/journey-events (journey:read).
import { Elysia } from "elysia";
import Negotiator from "negotiator";
import type { AccountRecord } from "../accounts/principal";
import { API_PREFIX } from "../http/api-prefix";
import type { Auth } from "../http/auth";
import { operation, REPORT_ERRORS } from "../openapi/operation";
import type { Clickhouse } from "../storage/clickhouse/client";
import type { Postgres } from "../storage/postgres/client";
import { checkQueryBounds } from "../http/query-bounds";
import { CLICK_COLUMNS, EXPORT_BOUNDS, ExportQuery, JOURNEY_COLUMNS, type ExportColumn, type ExportFormat } from "./model";
import { startExport, type ExportDeps } from "./service";

const MEDIA: Record<ExportFormat, string> = { csv: "text/csv; charset=utf-8", ndjson: "application/x-ndjson" };

/** `format` wins; else the Accept header's preference between CSV and NDJSON; else CSV. */
function formatOf(request: Request, format: ExportFormat | undefined): ExportFormat {
  if (format) return format;
  const accept = request.headers.get("accept");
  if (!accept) return "csv";
  const chosen = new Negotiator({ headers: { accept } }).mediaType(["text/csv", "application/x-ndjson"]);
  return chosen === "application/x-ndjson" ? "ndjson" : "csv";
}

const wantsGzip = (request: Request, compress: string | undefined) => {
  if (compress === "gzip") return true;
  const acceptEncoding = request.headers.get("accept-encoding");
  return !!acceptEncoding && new Negotiator({ headers: { "accept-encoding": acceptEncoding } }).encoding(["identity", "gzip"]) === "gzip";
};

interface ExportContext {
  request: Request;
  query: ExportQuery;
  account: AccountRecord;
}

async function answer(deps: ExportDeps, kind: "clicks" | "journey", file: string, ctx: ExportContext) {
  const { request } = ctx;
  const query = checkQueryBounds(ctx.query, EXPORT_BOUNDS);
  const format = formatOf(request, query.format);
  const gzip = wantsGzip(request, query.compress);
  const out = await startExport(deps, ctx.account, { kind, query, format, gzip });
  const headers: Record<string, string> = {
    "content-type": MEDIA[format],
    "content-disposition": `attachment; filename="${file}-${out.range.start}-${out.range.end}.${format}"`,
    "x-export-range": `${out.range.start}/${out.range.end}`,
    vary: "Accept, Accept-Encoding",
  };
  if (gzip) headers["content-encoding"] = "gzip";
  if (out.next) {
    headers["x-export-next-cursor"] = out.next;
    const url = new URL(request.url);
    url.searchParams.set("cursor", out.next);
    headers.link = `<${url.pathname}${url.search}>; rel="next"`;
  }
  return new Response(out.body, { headers });
}

const describe = (columns: readonly ExportColumn[]) =>
  `Columns, in order: ${columns.map((c) => `\`${c.name}\` (${c.description})`).join("; ")}.`;

const COMMON =
  "Every row of the account in the range (`start_date`…`end_date`, UTC days, clamped to the tier's retention), oldest first by " +
  "(timestamp, id), streamed: CSV (RFC 4180, a header row, cells a spreadsheet would run as a formula prefixed with `'`) or NDJSON " +
  "(one JSON object per line, values as stored). gzip with `Accept-Encoding: gzip` or `compress=gzip`. An interrupted download " +
  "resumes with `cursor=<timestamp>,<id>` of the last complete row received; with `limit`, an answer that stops before the end says " +
  'where to go on in X-Export-Next-Cursor and a `Link: rel="next"` header. `link_id`, `campaign_id` and `domain` narrow it ' +
  "(404 when not the account's).";

export function exportRoutes(deps: { pg: Postgres; ch: Clickhouse; auth: Auth }) {
  const d: ExportDeps = { pg: deps.pg, ch: deps.ch };
  return (
    new Elysia({ name: "exports", prefix: API_PREFIX })
      .use(deps.auth)
      // GET /exports/clicks
      .get("/exports/clicks", (ctx) => answer(d, "clicks", "clicks", ctx), {
        scope: "analytics:read",
        query: ExportQuery,
        detail: operation({
          id: "exportClicks",
          tag: "Analytics",
          summary: "Export raw clicks",
          description: `${COMMON} No client address is stored, so none is exported; nor is the daily visitor hash (docs/exports.md).`,
          responses: {
            200: {
              description: "The clicks",
              media: ["text/csv", "application/x-ndjson"],
              mediaDescription: describe(CLICK_COLUMNS),
              headers: ["X-Export-Range", "X-Export-Next-Cursor"],
            },
          },
          errors: ["NOT_FOUND", ...REPORT_ERRORS],
        }),
      })
      // GET /exports/journey-events
      .get("/exports/journey-events", (ctx) => answer(d, "journey", "journey-events", ctx), {
        scope: "journey:read",
        query: ExportQuery,
        detail: operation({
          id: "exportJourneyEvents",
          tag: "Journey",
          summary: "Export raw journey events",
          description: `${COMMON} \`domain\` selects the links of that custom domain.`,
          responses: {
            200: {
              description: "The journey events",
              media: ["text/csv", "application/x-ndjson"],
              mediaDescription: describe(JOURNEY_COLUMNS),
              headers: ["X-Export-Range", "X-Export-Next-Cursor"],
            },
          },
          errors: ["NOT_FOUND", ...REPORT_ERRORS],
        }),
      })
  );
}
