// Errors → the response envelope (docs/api.md "Responses and errors"). This runs when something already went wrong, so it must not throw
// itself: whatever fails while mapping an error becomes a plain 500 INTERNAL_ERROR envelope.
import { ValidationError } from "elysia";
import { AppError } from "../errors";
import { QueryTimeoutError, StoreUnavailableError } from "../storage/failures";
import { isConnectionFailure, isStatementTimeout } from "../storage/postgres/errors";
import { errorBody, rateLimitBody } from "./envelope";
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
  if (error instanceof ValidationError) return fromValidation(error);
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
}

/** Names every failing field, e.g. `query.per_page` or `body.events.3.event_type`. */
function fromValidation(error: ValidationError): AppError {
  const location = locationOf(error);
  const seen = new Set<string>();
  const fields: { field: string; message: string }[] = [];
  for (const e of engineErrors(error)) {
    const path = typeof e.path === "string" ? e.path.replace(/^\//, "").replaceAll("/", ".") : "";
    const field = path ? `${location}.${path}` : location;
    if (seen.has(field)) continue;
    seen.add(field);
    fields.push({ field, message: String(e.summary ?? e.message ?? "is invalid") });
  }
  if (fields.length === 0) fields.push({ field: location, message: "is invalid" });
  const first = fields[0];
  return new AppError("VALIDATION_ERROR", `${first.field}: ${first.message}`, { fields });
}

function locationOf(error: ValidationError): string {
  const type = (error as { type?: unknown })?.type;
  if (type === "params") return "path";
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
