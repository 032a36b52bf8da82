// CSV answers of the reports (docs/exports.md "Reports as CSV"): a route declares its table with the
// `csv` macro (`{ csv: someTable }`); the request asks for it with `format=csv` or an Accept header that
// prefers text/csv, and the plumbing (plumbing.ts) turns the handler's JSON answer into the table. The
// services never know: they return the same plain values for both.
import { Elysia, type DocumentDecoration } from "elysia";
import Negotiator from "negotiator";
import { stringify } from "csv-stringify/sync";
import { validationError } from "../errors";
import { Envelope, Paginated } from "./envelope";
import { neutralizeFormula } from "./csv-cells";

export interface CsvColumn<R> {
  name: string;
  description: string;
  /** The cell of a row; by default the row's field of the column's name. */
  value?: (row: R) => unknown;
}

/** How a report's answer (`data`, or a page's items) becomes rows of fixed columns. */
export interface CsvTable<D = never, R = never> {
  /** The file name the download suggests, without `.csv`. */
  file: string;
  /** A sentence on what one row is, for the document. */
  rows: string;
  toRows: (data: D) => readonly R[];
  columns: readonly CsvColumn<R>[];
}

/** Declares a table with its types checked against the report's answer. */
export const csvTable = <D, R>(table: CsvTable<D, R>) => table as unknown as CsvTable;

/** What the OpenAPI document reads of a route's table (document.ts). */
export interface CsvDoc {
  rows: string;
  columns: { name: string; description: string }[];
}
export const CSV_DETAIL = "x-svc-csv";

const FORMATS = ["json", "csv"];
const wanted = new WeakMap<Request, CsvTable>();

/** The plugin a report's routes use for the `csv` macro. */
export const csvReports = new Elysia({ name: "csv-reports" }).macro({
  csv: (table: CsvTable) => ({
    detail: {
      [CSV_DETAIL]: { rows: table.rows, columns: table.columns.map(({ name, description }) => ({ name, description })) },
    } as DocumentDecoration,
    // Before validation, so the strict query schemas never see `format`.
    transform({ request, query }) {
      const q = query as Record<string, unknown>;
      if (wantsCsv(request, q.format)) {
        // A table has one set of rows: the comparison is JSON only.
        if (q.compare !== undefined) throw validationError("query.compare", "is not available in CSV: ask for JSON (format=json)");
        wanted.set(request, table);
      }
      delete q.format;
    },
  }),
});

/** `format` wins; without it, the Accept header (JSON when it prefers neither or both equally). */
function wantsCsv(request: Request, format: unknown): boolean {
  if (format !== undefined) {
    if (typeof format !== "string" || !FORMATS.includes(format)) throw validationError("query.format", "must be json or csv");
    return format === "csv";
  }
  const accept = request.headers.get("accept");
  if (!accept) return false;
  return new Negotiator({ headers: { accept } }).mediaType(["application/json", "text/csv"]) === "text/csv";
}

/** The CSV answer when the request asked for one (plumbing.ts, after the handler); undefined otherwise. */
export function csvAnswer(request: Request, response: unknown): Response | undefined {
  const table = wanted.get(request);
  if (!table) return undefined;
  const data = response instanceof Paginated ? response.items : response instanceof Envelope ? response.data : response;
  return new Response(renderCsv(table, data as never), {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${table.file}.csv"`,
    },
  });
}

/** The header row and one line per row, RFC 4180 (CRLF, quotes doubled), formula cells neutralised. */
export function renderCsv(table: CsvTable, data: never): string {
  const rows = table.toRows(data).map((row) => table.columns.map((c) => cell(c.value ? c.value(row) : (row as never)[c.name])));
  return stringify(rows, { header: true, columns: table.columns.map((c) => c.name), record_delimiter: "windows" });
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return neutralizeFormula(value);
  if (typeof value === "object") return neutralizeFormula(JSON.stringify(value));
  return String(value);
}
