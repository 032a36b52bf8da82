// A request read the way ClickHouse's HTTP handler reads it: credentials, the query from the URL and/or
// the body (the body continues the URL's query; after `INSERT … FORMAT x` it is the data), `param_*`
// bound parameters, every other URL parameter a setting, compressed bodies, multipart parameters.
import { randomUUID } from "node:crypto";
import { fail } from "./errors";
import type { EngineRequest } from "./engine";
import { scanStatement } from "./statement";
import { decompress, pickResponseCodec, type Codec } from "./compression";

export interface Credentials {
  user: string;
  password: string;
}

export interface ParsedRequest {
  queryId: string;
  engine: EngineRequest;
  /** What X-ClickHouse-Format names: the FORMAT clause, else default_format, else TabSeparated. */
  outputFormat: string;
  responseCodec?: Codec;
}

/** URL parameters the server reads itself; every other one, but `param_*`, is a setting. */
const RESERVED = new Set([
  "query",
  "database",
  "default_format",
  "query_id",
  "user",
  "password",
  "quota_key",
  "wait_end_of_query",
  "buffer_size",
  "stacktrace",
  "client_protocol_version",
  "close_session",
  "readonly",
]);
/** What a real server does and this stand-in refuses rather than ignores. */
const UNSUPPORTED: Record<string, string> = {
  session_id: "sessions",
  session_check: "sessions",
  session_timeout: "sessions",
  role: "roles",
  compress: "ClickHouse's native compression of the response (compress=1)",
  decompress: "ClickHouse's native compression of the request (decompress=1)",
};
/** Statements a read-only request (GET, or readonly=1) may run. */
const READ_KEYWORDS = new Set(["SELECT", "WITH", "SHOW", "DESCRIBE", "DESC", "EXISTS", "EXPLAIN", "SET", "USE"]);

export async function parseRequest(
  req: Request,
  url: URL,
  credentials: Credentials,
  profile: Record<string, string>,
): Promise<ParsedRequest> {
  checkCredentials(req, url, credentials);
  const params = new Map(url.searchParams);
  let body = decompress(Buffer.from(await req.arrayBuffer()), req.headers.get("content-encoding"));
  if (req.headers.get("content-type")?.startsWith("multipart/form-data")) {
    await readMultipart(body, req.headers.get("content-type")!, params);
    body = Buffer.alloc(0);
  }
  for (const [name, value] of params) {
    if (name in UNSUPPORTED && value !== "" && value !== "0")
      throw fail("NOT_IMPLEMENTED", `This stand-in does not support ${UNSUPPORTED[name]}.`);
  }

  const { statement, data, info } = splitQuery(params.get("query") ?? "", body);
  if (!statement.trim()) throw fail("SYNTAX_ERROR", "Empty query.");
  if (info.secondStatementAt !== undefined)
    throw fail(
      "SYNTAX_ERROR",
      `Syntax error (Multi-statements are not allowed): failed at position ${info.secondStatementAt + 1}: ${statement.slice(info.secondStatementAt, info.secondStatementAt + 40)}.`,
    );
  const readonly = req.method === "GET" || (params.get("readonly") ?? "0") !== "0";
  if (readonly && !READ_KEYWORDS.has(info.keyword)) throw fail("READONLY", "Cannot execute query in readonly mode.");

  const defaultFormat = params.get("default_format") || "TabSeparated";
  const settings: [string, string][] = [];
  const bound: Record<string, string> = {};
  for (const [name, value] of params) {
    if (name.startsWith("param_")) bound[name.slice(6)] = value;
    else if (!RESERVED.has(name) && !(name in UNSUPPORTED)) settings.push([name, value]);
  }
  for (const [name, value] of Object.entries(profile)) if (!params.has(name)) settings.push([name, value]);
  // An INSERT over HTTP with an empty body stores nothing and succeeds (chDB, like clickhouse-client, refuses it).
  if (data?.length === 0 && !params.has("throw_if_no_data_to_insert")) settings.push(["throw_if_no_data_to_insert", "0"]);
  const compression = params.get("enable_http_compression");
  return {
    queryId: params.get("query_id") || randomUUID(),
    outputFormat: (info.keyword !== "INSERT" && info.format) || defaultFormat,
    responseCodec: compression === "1" || compression === "true" ? pickResponseCodec(req.headers.get("accept-encoding")) : undefined,
    engine: {
      database: params.get("database") || "default",
      statement,
      data,
      params: bound,
      settings,
      format: defaultFormat,
      insert: info.keyword === "INSERT",
      throwaway: info.keyword === "SET" || info.keyword === "USE",
    },
  };
}

/**
 * The URL's query, continued by the body (after a line break, as the server joins them). An INSERT's
 * data is cut off byte-exact, so that binary formats arrive intact.
 */
function splitQuery(urlQuery: string, body: Buffer) {
  if (urlQuery) {
    const info = scanStatement(urlQuery);
    if (info.dataAt !== undefined && !urlQuery.slice(info.dataAt).trim())
      return { statement: urlQuery.slice(0, info.dataAt).trimEnd(), data: body, info };
  }
  const all = urlQuery ? Buffer.concat([Buffer.from(`${urlQuery}\n`), body]) : body;
  const text = all.toString("utf8");
  const info = scanStatement(text);
  if (info.dataAt === undefined) return { statement: text, data: undefined, info };
  const head = text.slice(0, info.dataAt);
  return { statement: head.trimEnd(), data: all.subarray(Buffer.byteLength(head)), info };
}

function checkCredentials(req: Request, url: URL, expected: Credentials) {
  let user = "default";
  let password = "";
  const authorization = req.headers.get("authorization");
  if (authorization?.startsWith("Basic ")) {
    const decoded = Buffer.from(authorization.slice(6), "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    user = colon < 0 ? decoded : decoded.slice(0, colon);
    password = colon < 0 ? "" : decoded.slice(colon + 1);
  } else if (req.headers.has("x-clickhouse-user")) {
    user = req.headers.get("x-clickhouse-user")!;
    password = req.headers.get("x-clickhouse-key") ?? "";
  } else if (url.searchParams.has("user")) {
    user = url.searchParams.get("user")!;
    password = url.searchParams.get("password") ?? "";
  }
  if (user !== expected.user || password !== expected.password)
    throw fail("AUTHENTICATION_FAILED", `${user}: Authentication failed: password is incorrect, or there is no user with such name.`);
}

/** Multipart fields are parameters like the URL's (clickhouse-js sends long `param_*` this way); files would be external tables. */
async function readMultipart(body: Buffer, contentType: string, params: Map<string, string>) {
  const form = await new Response(body as BodyInit, { headers: { "content-type": contentType } }).formData();
  for (const [name, value] of form) {
    if (typeof value !== "string")
      throw fail("NOT_IMPLEMENTED", "This stand-in does not support external tables (files in a multipart body).");
    params.set(name, value);
  }
}
