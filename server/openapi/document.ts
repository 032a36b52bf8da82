// The OpenAPI 3.1 document of one API (public or admin), built from Elysia's route table: each route's
// operation() detail, the params/query/body schemas it validates with, and what every route of its
// kind answers (401/403/429 from the API-key check, 400 for input, 500). Nothing is written twice.
import type { InternalRoute } from "elysia";
import type { TSchema } from "@sinclair/typebox";
import { ERROR_STATUS, type ErrorCode } from "../errors";
import { errorEnvelope, errorObject, HEADERS, RateLimitError, successEnvelope, type DocumentedHeader } from "./envelope";
import { SchemaComponents, type Json } from "./json-schema";
import { operationOf, type ErrorDoc, type OperationSpec, type SuccessDoc } from "./operation";
import EXAMPLES from "./examples.json";
import { CSV_DETAIL, type CsvDoc } from "../http/csv-report";

/** Real answers by operationId and status, captured by test/fixtures/capture-examples.ts. */
const CAPTURED = EXAMPLES as Record<string, Record<string, unknown>>;

export interface DocumentOptions {
  title: string;
  description: string;
  version: string;
  /** Path prefix of the API's routes; the document's paths are relative to it (its server URL). */
  prefix: string;
  tags: Record<string, string>;
  security: "ApiKey" | "AdminToken";
  /** Routes under the prefix that are not operations (the reference page itself). */
  skip?: (path: string) => boolean;
}

export interface BuiltDocument {
  document: Json;
  /** Routes under the prefix that lack operation() metadata; the document leaves them out. */
  problems: string[];
}

const SECURITY_SCHEMES = {
  ApiKey: {
    type: "apiKey",
    in: "header",
    name: "X-API-Key",
    description: "An API key (`svc_` + 28 characters) with the route's permission",
  },
  AdminToken: { type: "http", scheme: "bearer", description: "The server's ADMIN_TOKEN" },
};

const STATUS_TEXT: Record<number, string> = {
  400: "Malformed path, query, header or body; `error.details.fields` names each failing field",
  401: "Missing, malformed, unknown or revoked credentials",
  403: "Not allowed: missing permission, address outside the key's allowlist, tier or quota",
  404: "Unknown id, or another account's (never 403)",
  408: "Past the processing cap",
  409: "Conflict with the current state",
  410: "Gone for good",
  413: "Body too large",
  415: "Unsupported Content-Type",
  429: "Too many requests",
  500: "Unexpected error (logged with the request id)",
  503: "Temporarily unable to accept the request; nothing was stored",
};

export function buildDocument(routes: readonly InternalRoute[], opts: DocumentOptions): BuiltDocument {
  const components = new SchemaComponents();
  const paths: Record<string, Record<string, Json>> = {};
  const problems: string[] = [];
  for (const route of routes) {
    if (route.method === "OPTIONS" || !isUnder(route.path, opts.prefix) || opts.skip?.(route.path)) continue;
    const detail = route.hooks.detail as Record<string, unknown> | undefined;
    if (detail?.hide) continue;
    const spec = operationOf(detail);
    if (!spec) {
      problems.push(`${route.method} ${route.path} has no operation() detail (operationId, tag, summary, responses)`);
      continue;
    }
    const path = route.path.slice(opts.prefix.length).replace(/:(\w+)/g, "{$1}");
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = describeOperation(route, spec, detail ?? {}, opts, components);
  }
  const ids = Object.values(paths).flatMap((p) => Object.values(p).map((o) => String(o.operationId)));
  for (const id of new Set(ids)) if (ids.filter((x) => x === id).length > 1) problems.push(`operationId ${id} is used twice`);
  const document = {
    openapi: "3.1.0",
    info: { title: opts.title, version: opts.version, description: opts.description },
    servers: [{ url: opts.prefix, description: "This server" }],
    security: [{ [opts.security]: [] }],
    tags: Object.entries(opts.tags).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas: components.schemas,
      headers: usedHeaders(paths),
      securitySchemes: { [opts.security]: SECURITY_SCHEMES[opts.security] },
    },
  };
  return { document, problems };
}

/** The shared headers some response refers to: `<name>` where it is required, `<name>.optional` where it may be absent. */
function usedHeaders(paths: unknown) {
  const text = JSON.stringify(paths);
  const out: Record<string, Json> = {};
  for (const [name, header] of Object.entries(HEADERS)) {
    if (text.includes(`"#/components/headers/${name}"`)) out[name] = { ...header, required: true };
    if (text.includes(`"#/components/headers/${name}.optional"`)) out[`${name}.optional`] = header;
  }
  return out;
}

const isUnder = (path: string, prefix: string) => path === prefix || path.startsWith(prefix + "/");

interface RouteFacts {
  scope?: string;
  rateLimited: boolean;
  hasInput: boolean;
  hasBody: boolean;
}

function describeOperation(
  route: InternalRoute,
  spec: OperationSpec,
  detail: Record<string, unknown>,
  opts: DocumentOptions,
  c: SchemaComponents,
) {
  const hooks = route.hooks as Record<string, TSchema | undefined>;
  const csv = detail[CSV_DETAIL] as CsvDoc | undefined;
  const parameters = [
    ...objectParameters("path", hooks.params, route.path, c),
    ...objectParameters("query", hooks.query, route.path, c),
    ...(csv ? [FORMAT_PARAMETER] : []),
    ...(spec.headers ?? []).map((h) => ({ name: h.name, in: "header", description: h.description, schema: c.convert(h.schema) })),
  ];
  const requestBody = describeBody(spec, hooks.body, c);
  const scope = typeof detail["x-required-scope"] === "string" ? detail["x-required-scope"] : undefined;
  const facts: RouteFacts = {
    scope,
    rateLimited: detail["x-rate-limited"] === true,
    hasInput: parameters.length > 0 || !!requestBody,
    hasBody: !!requestBody,
  };
  const op: Json = {
    operationId: spec.id,
    tags: [spec.tag],
    summary: spec.summary,
    description: [scope ? `Requires the \`${scope}\` permission.` : "", spec.description ?? ""].filter(Boolean).join(" ") || undefined,
    parameters: parameters.length ? parameters : undefined,
    requestBody,
    responses: { ...successResponses(spec, facts, c, csv), ...errorResponses(spec, facts, opts, c) },
  };
  if (scope) op["x-required-scope"] = scope;
  return Object.fromEntries(Object.entries(op).filter(([, v]) => v !== undefined));
}

function objectParameters(where: "path" | "query", schema: TSchema | undefined, routePath: string, c: SchemaComponents) {
  const json = schema ? c.convert(schema) : undefined;
  const props = (json?.properties ?? {}) as Record<string, Json>;
  const required = new Set((json?.required ?? []) as string[]);
  const names = where === "path" ? [...routePath.matchAll(/:(\w+)/g)].map((m) => m[1]) : Object.keys(props);
  return names.map((name) => {
    const { description, ...propSchema } = props[name] ?? { type: "string" };
    return {
      name,
      in: where,
      required: where === "path" || required.has(name),
      ...(description ? { description } : {}),
      schema: propSchema,
    };
  });
}

function describeBody(spec: OperationSpec, body: TSchema | undefined, c: SchemaComponents) {
  if (spec.body) {
    const content = Object.fromEntries(Object.entries(spec.body.content).map(([type, s]) => [type, s ? { schema: c.convert(s) } : {}]));
    return { required: true, description: spec.body.description, content };
  }
  if (!body) return undefined;
  return { required: true, content: { "application/json": { schema: c.convert(body) } } };
}

// A Reference Object cannot add `required`, so each header has a required and an optional component.
const headerObject = (name: DocumentedHeader, required: boolean) => [
  name,
  { $ref: `#/components/headers/${name}${required ? "" : ".optional"}` },
];

function headersOf(facts: RouteFacts, ok: boolean, extra: DocumentedHeader[] = []) {
  const names: [DocumentedHeader, boolean][] = [["X-Request-Id", true]];
  // Successful answers of a rate-limited route always carry the window; errors do once the key was known.
  if (facts.rateLimited) for (const h of ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"] as const) names.push([h, ok]);
  for (const h of extra) names.push([h, h === "Retry-After"]);
  return Object.fromEntries(names.map(([n, r]) => headerObject(n, r)));
}

/** The parameter every report with a CSV table takes (server/http/csv-report.ts). */
const FORMAT_PARAMETER = {
  name: "format",
  in: "query",
  required: false,
  description:
    "csv: the report as a CSV table (RFC 4180, a header row, cells that a spreadsheet would run as a formula prefixed with `'`); " +
    "json (default): the envelope. Without it, an `Accept` header that prefers `text/csv` chooses CSV. Errors are JSON either way.",
  schema: { type: "string", enum: ["json", "csv"] },
};

/** The text/csv answer of a report: its columns, in order, in the description. */
const csvMedia = (doc: CsvDoc) => ({
  schema: {
    type: "string",
    contentMediaType: "text/csv",
    description: `${doc.rows} Columns, in order: ${doc.columns.map((col) => `\`${col.name}\` (${col.description})`).join("; ")}.`,
  },
});

function successResponses(spec: OperationSpec, facts: RouteFacts, c: SchemaComponents, csv?: CsvDoc) {
  return Object.fromEntries(
    Object.entries(spec.responses).map(([status, doc]) => {
      if ("media" in doc) {
        const content = Object.fromEntries(
          doc.media.map((type) => [type, { schema: { type: "string", contentMediaType: type, description: doc.mediaDescription } }]),
        );
        return [status, { description: doc.description, headers: headersOf(facts, true, doc.headers), content }];
      }
      const d = { example: CAPTURED[spec.id]?.[status], ...doc };
      const schema = c.convert(successEnvelope(d.data, { paginated: d.paginated, success: d.success }));
      const media: Json = { schema };
      if (d.example !== undefined) media.example = exampleEnvelope(d);
      const content: Json = { "application/json": media };
      if (csv && status === "200") content["text/csv"] = csvMedia(csv);
      return [status, { description: d.description, headers: headersOf(facts, true, d.headers), content }];
    }),
  );
}

function exampleEnvelope(d: SuccessDoc) {
  const meta: Json = { request_id: "5f0c6a1e-8a53-4c1e-9d55-1f2a3b4c5d6e", timestamp: "2026-11-25T18:20:00.000Z" };
  if (d.paginated) {
    const n = Array.isArray(d.example) ? d.example.length : 0;
    Object.assign(meta, { page: 1, per_page: 20, total: n, total_pages: n ? 1 : 0 });
  }
  return { success: d.success ?? true, data: d.example, meta };
}

function errorResponses(spec: OperationSpec, facts: RouteFacts, opts: DocumentOptions, c: SchemaComponents) {
  const declared: ErrorDoc[] = [...(spec.errors ?? [])];
  if (opts.security === "AdminToken" || facts.scope) declared.push("UNAUTHORIZED");
  // The admin API answers 404 as a whole while the server has no ADMIN_TOKEN, and for unknown ids.
  if (opts.security === "AdminToken") declared.push("NOT_FOUND");
  // CROSS_SITE_REQUEST: the web console's session cookie is accepted too, and refused from another origin or without its token.
  if (facts.scope) declared.push("INSUFFICIENT_PERMISSIONS", "IP_NOT_ALLOWED", "CROSS_SITE_REQUEST");
  if (facts.rateLimited) declared.push("RATE_LIMIT_EXCEEDED");
  if (facts.hasInput) declared.push("VALIDATION_ERROR");
  // Every body is capped before it is parsed (MAX_BODY_BYTES).
  if (facts.hasBody) declared.push("PAYLOAD_TOO_LARGE");
  declared.push("INTERNAL_ERROR");

  const byStatus = new Map<number, Map<ErrorCode, TSchema | undefined>>();
  for (const e of declared) {
    const code = typeof e === "string" ? e : e.code;
    const status = ERROR_STATUS[code];
    if (!byStatus.has(status)) byStatus.set(status, new Map());
    const codes = byStatus.get(status)!;
    if (!codes.has(code) || typeof e !== "string") codes.set(code, typeof e === "string" ? undefined : e.details);
  }
  const out: Record<string, Json> = {};
  for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const objectCodes = [...codes].filter(([code]) => code !== "RATE_LIMIT_EXCEEDED");
    const forms: TSchema[] = [];
    if (objectCodes.length)
      forms.push(
        errorEnvelope(
          status,
          objectCodes.map(([code, details]) => errorObject(code, details)),
        ),
      );
    if (codes.has("RATE_LIMIT_EXCEEDED")) forms.push(RateLimitError);
    const schema = forms.length === 1 ? c.convert(forms[0]) : { oneOf: forms.map((f) => c.convert(f)) };
    const extra: DocumentedHeader[] = status === 429 || status === 503 ? ["Retry-After"] : [];
    out[String(status)] = {
      description: `${STATUS_TEXT[status] ?? "Error"}: ${[...codes.keys()].join(", ")}`,
      headers: headersOf(facts, false, extra),
      content: { "application/json": { schema } },
    };
  }
  return out;
}
