// Errors → the response envelope (docs/api.md "Responses and errors"). This runs when something already went wrong, so it must not throw
// itself: whatever fails while mapping an error becomes a plain 500 INTERNAL_ERROR envelope.
import { ValidationError } from "elysia";
import { AppError } from "../errors";
import { QueryTimeoutError, StoreUnavailableError } from "../storage/failures";
import { isConnectionFailure, isStatementTimeout } from "../storage/postgres/errors";
import { errorBody, rateLimitBody } from "./envelope";
import { UNKNOWN_PARAMETER } from "./strict-query";
import { requestIdOf } from "./request-context";
import type { Logger } from "./logger";

export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

const INTERNAL = () => new AppError("INTERNAL_ERROR", "An unexpected error occurred");

/** What the request carried, to name the field of a failed schema transform (see decodeFailure). */
export interface RequestInputs {
  request: Request;
  query?: unknown;
  body?: unknown;
  params?: unknown;
}

export function errorResponseBody(code: string | number, error: unknown, inputs: RequestInputs, logger: Logger): ErrorAnswer {
  let requestId = "unknown";
  try {
    requestId = requestIdOf(inputs.request);
    const appError = toAppError(code, error, inputs);
    if (appError.code === "INTERNAL_ERROR") logUnexpected(logger, requestId, error);
    const headers: Record<string, string> = { "x-request-id": requestId, ...appError.headers };
    const body = appError.code === "RATE_LIMIT_EXCEEDED" ? rateLimitBody(appError.message) : errorBody(requestId, appError);
    return { status: appError.status, headers, body };
  } catch (mappingError) {
    logUnexpected(logger, requestId, mappingError);
    return internalErrorAnswer(requestId);
  }
}

/** The answer when nothing else can be said; built from constants only. */
export function internalErrorAnswer(requestId: string): ErrorAnswer {
  const appError = INTERNAL();
  return { status: 500, headers: { "x-request-id": requestId }, body: errorBody(requestId, appError) };
}

function logUnexpected(logger: Logger, requestId: string, error: unknown) {
  try {
    logger.error({ request_id: requestId, msg: "unhandled error", error: describeError(error) });
  } catch {
    // A logger that fails has nowhere to report to.
  }
}

export function describeError(error: unknown): string {
  try {
    return String((error as Error)?.stack ?? error);
  } catch {
    return "unprintable error";
  }
}

function toAppError(code: string | number, error: unknown, inputs: RequestInputs): AppError {
  if (error instanceof AppError) return error;
  // Our own parse hook throws AppErrors; Elysia wraps whatever a parser throws in a ParseError.
  if (code === "PARSE") {
    const cause = (error as { cause?: unknown })?.cause;
    if (cause instanceof AppError) return cause;
    return new AppError("VALIDATION_ERROR", "body: request body is not valid JSON", {
      fields: [{ field: "body", message: "not valid JSON" }],
    });
  }
  if (error instanceof ValidationError) return fromValidation(error, inputs);
  const store = storeFailure(error);
  if (store) return store;
  if (code === "VALIDATION") return decodeFailure(error, inputs);
  if (code === "NOT_FOUND") return new AppError("NOT_FOUND", "Route not found");
  if (code === "INVALID_COOKIE_SIGNATURE") return new AppError("VALIDATION_ERROR", "Invalid cookie");
  return INTERNAL();
}

/** Seconds a client should wait before it asks again (Retry-After) when a store failed. */
const STORE_RETRY_AFTER = { unavailable: "5", timeout: "30" };

/** A store that could not answer: 503 naming the store, or the time limit, with Retry-After. */
function storeFailure(error: unknown): AppError | null {
  const name = { clickhouse: "ClickHouse", postgres: "Postgres" } as const;
  if (error instanceof QueryTimeoutError || isStatementTimeout(error)) {
    const limit = error instanceof QueryTimeoutError ? ` (${error.limitMs / 1000} s)` : "";
    return new AppError(
      "QUERY_TIMEOUT",
      `The report ran past its time limit${limit} and was stopped; retry later or ask for a shorter range`,
      undefined,
      { "retry-after": STORE_RETRY_AFTER.timeout },
    );
  }
  const store = error instanceof StoreUnavailableError ? error.store : isConnectionFailure(error) ? "postgres" : null;
  if (!store) return null;
  return new AppError(
    store === "clickhouse" ? "CLICKHOUSE_UNAVAILABLE" : "POSTGRES_UNAVAILABLE",
    `${name[store]} cannot be reached; retry shortly`,
    undefined,
    { "retry-after": STORE_RETRY_AFTER.unavailable },
  );
}

interface EngineError {
  path?: string;
  message?: string;
  summary?: string;
  schema?: unknown;
  value?: unknown;
  /** For a union: each member's own errors. */
  errors?: unknown;
}

/** Names every failing field, e.g. `query.per_page` or `body.events.3.event_type`. */
function fromValidation(error: ValidationError, inputs: RequestInputs): AppError {
  const location = locationOf(error, inputs);
  const seen = new Set<string>();
  const fields: { field: string; message: string }[] = [];
  for (const e of engineErrors(error)) {
    const path = typeof e.path === "string" ? e.path.replace(/^\//, "").replaceAll("/", ".") : "";
    const field = path ? `${location}.${path}` : location;
    if (seen.has(field)) continue;
    seen.add(field);
    const unknown = (e.schema as { description?: unknown } | undefined)?.description === UNKNOWN_PARAMETER;
    fields.push({ field, message: unknown ? UNKNOWN_PARAMETER : (unionMessage(e) ?? String(e.summary ?? e.message ?? "is invalid")) });
  }
  if (fields.length === 0) fields.push({ field: location, message: "is invalid" });
  const unknown = fields.filter((f) => f.message === UNKNOWN_PARAMETER).map((f) => f.field);
  if (unknown.length)
    return new AppError("VALIDATION_ERROR", `Unknown query parameters: ${unknown.map((f) => f.replace(/^query\./, "")).join(", ")}`, {
      fields,
    });
  const first = fields[0];
  return new AppError("VALIDATION_ERROR", `${first.field}: ${first.message}`, { fields });
}

/**
 * A failed union: when the value is of the kind one member takes (a string too long for a string-or-null),
 * that member's own complaint; otherwise what the union allows.
 */
function unionMessage(e: EngineError): string | null {
  try {
    const members = (e.schema as { anyOf?: unknown })?.anyOf;
    if (Array.isArray(members) && Array.isArray(e.errors) && members.length === e.errors.length) {
      const kind = kindOf(e.value);
      const takes = (kinds: string[]) => kinds.some((k) => k === kind || (k === "number" && kind === "integer"));
      // By what a member means (a numeric string is an integer), then, if several, by its JSON type as written.
      let fitting = members.flatMap((m, i) => (takes(alternatives(m)) ? [i] : []));
      if (fitting.length > 1) fitting = fitting.filter((i) => takes(kindsOf(members[i])));
      if (fitting.length === 1) {
        const first = (e.errors[fitting[0]] as Iterable<EngineError>)[Symbol.iterator]().next().value;
        // A member that is a union itself (Elysia's integers take a numeric string too) explains itself.
        if (Array.isArray((first?.schema as { anyOf?: unknown })?.anyOf)) return unionMessage(first as EngineError);
        if (typeof first?.message === "string") return first.message;
      }
    }
  } catch {
    // fall through to what the union allows
  }
  return allowedValues(e.schema);
}

/** The JSON types a union member takes, as written (a numeric string is a string here). */
function kindsOf(member: unknown): string[] {
  const m = member as { const?: unknown; anyOf?: unknown; type?: unknown };
  if (m && "const" in m) return [kindOf(m.const)];
  if (Array.isArray(m?.anyOf)) return m.anyOf.flatMap(kindsOf);
  return typeof m?.type === "string" ? [m.type] : [];
}

const kindOf = (v: unknown) =>
  v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "number" ? (Number.isInteger(v) ? "integer" : "number") : typeof v;

/**
 * For a failed union or enum, what it allows (`must be one of ios, android`, `must be integer or null`):
 * the validator's own words are `Expected union value`, which tells the caller nothing.
 */
export function allowedValues(schema: unknown): string | null {
  try {
    const s = schema as { anyOf?: unknown; enum?: unknown };
    if (Array.isArray(s?.enum)) return `must be one of ${s.enum.map(String).join(", ")}`;
    if (!Array.isArray(s?.anyOf) || s.anyOf.length === 0) return null;
    const members = s.anyOf as { const?: unknown }[];
    if (members.every((m) => m && "const" in m)) return `must be one of ${members.map((m) => String(m.const)).join(", ")}`;
    return `must be ${[...new Set(members.flatMap(alternatives))].join(" or ")}`;
  } catch {
    return null;
  }
}

/** A union member in words; Elysia's numbers are themselves unions with a numeric string (`format: integer`). */
function alternatives(member: unknown): string[] {
  const m = member as { const?: unknown; enum?: unknown; anyOf?: unknown; type?: unknown; format?: unknown };
  if (m && "const" in m) return [JSON.stringify(m.const)];
  if (Array.isArray(m?.enum)) return m.enum.map((v) => JSON.stringify(v));
  if (Array.isArray(m?.anyOf)) return m.anyOf.flatMap(alternatives);
  if (m?.type === "string" && (m.format === "integer" || m.format === "numeric")) return [m.format === "integer" ? "integer" : "number"];
  return [typeof m?.type === "string" ? m.type : "a value"];
}

function locationOf(error: ValidationError, inputs: RequestInputs): string {
  const type = (error as { type?: unknown })?.type;
  if (type === "params") return "path";
  // A coerced value that failed on its own (a query number of 1e309): Elysia says "property", not where.
  if (type === "property") {
    const value = (error as { value?: unknown }).value;
    return fieldHolding(value, inputs) ?? (typeof value === "number" ? queryNumbered(value, inputs) : null) ?? "request";
  }
  return typeof type === "string" && type ? type : "request";
}

/**
 * The validator's errors. `all` recomputes them and is missing for some schemas (a union reports none),
 * so fall back to the first error Elysia kept, then to none.
 */
function engineErrors(error: ValidationError): EngineError[] {
  try {
    const all = (error as { all?: unknown }).all;
    if (Array.isArray(all) && all.length) return all.filter((e): e is EngineError => typeof e === "object" && e !== null);
  } catch {
    // fall through
  }
  try {
    const first = (error as { valueError?: unknown }).valueError;
    if (typeof first === "object" && first !== null) return [first as EngineError];
  } catch {
    // fall through
  }
  return [];
}

/**
 * A schema transform (numbers and booleans in the query) that failed: TypeBox reports the sub-schema
 * and value that failed, not the field, so the field is the input whose value that was.
 */
function decodeFailure(error: unknown, inputs: RequestInputs): AppError {
  const e = error as { value?: unknown; error?: { path?: unknown; message?: unknown } };
  const inner = typeof e.error?.path === "string" ? e.error.path.replace(/^\//, "").replaceAll("/", ".") : "";
  const message = typeof e.error?.message === "string" ? e.error.message : "is invalid";
  const field = fieldHolding(e.value, inputs);
  const named = field && inner ? `${field}.${inner}` : (field ?? "request");
  return new AppError("VALIDATION_ERROR", `${named}: ${message}`, { fields: [{ field: named, message }] });
}

/** The query parameter whose text reads as `value` (Elysia reports the number it made, not the text). */
function queryNumbered(value: number, inputs: RequestInputs): string | null {
  if (typeof inputs.query !== "object" || inputs.query === null) return null;
  const hit = Object.entries(inputs.query).find(([, v]) => typeof v === "string" && Number(v) === value);
  return hit ? `query.${hit[0]}` : null;
}

function fieldHolding(value: unknown, inputs: RequestInputs): string | null {
  const places: [string, unknown][] = [
    ["query", inputs.query],
    ["body", inputs.body],
    ["path", inputs.params],
  ];
  for (const [location, holder] of places) {
    if (typeof holder !== "object" || holder === null) continue;
    if (holder === value) return location;
    for (const [key, v] of Object.entries(holder)) {
      // A query value the schema turned into a list arrives as [value].
      if (v === value || (Array.isArray(value) && value.length === 1 && value[0] === v)) return `${location}.${key}`;
    }
  }
  return null;
}
