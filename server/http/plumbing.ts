// Global HTTP behaviour: request ids, the response envelope, error mapping, metrics and access logs.
import { Elysia, ValidationError } from "elysia";
import { AppError } from "../errors";
import { Envelope, errorBody, rateLimitBody, successBody } from "./envelope";
import { beginRequest, requestFacts, requestIdOf } from "./request-context";
import type { Metrics } from "./metrics";
import type { Logger } from "./logger";

/** A handler's Response (pages, redirects, the OpenAPI documents) is sent as it is; anything else is enveloped. */
export function httpPlumbing(deps: { metrics: Metrics; logger: Logger }) {
  return new Elysia({ name: "http-plumbing" })
    .onRequest(({ request, set }) => {
      set.headers["x-request-id"] = beginRequest(request).id;
    })
    .onAfterHandle({ as: "global" }, ({ request, response, set }) => {
      if (response instanceof Response) return;
      if (response instanceof Envelope) {
        set.status = response.status;
        if (response.headers) Object.assign(set.headers, response.headers);
        return successBody(requestIdOf(request), response.data, response.success);
      }
      return successBody(requestIdOf(request), response);
    })
    .onError({ as: "global" }, ({ code, error, request, set }) => {
      const requestId = requestIdOf(request);
      const appError = toAppError(code, error);
      if (appError.code === "INTERNAL_ERROR") {
        deps.logger.error({ request_id: requestId, msg: "unhandled error", error: String((error as Error)?.stack ?? error) });
      }
      set.status = appError.status;
      set.headers["x-request-id"] = requestId;
      if (appError.headers) Object.assign(set.headers, appError.headers);
      if (appError.code === "RATE_LIMIT_EXCEEDED") return rateLimitBody(appError.message);
      return errorBody(requestId, appError);
    })
    .onAfterResponse({ as: "global" }, ({ request, route, set, responseValue }) => {
      const facts = requestFacts(request);
      const seconds = (performance.now() - facts.startedAt) / 1000;
      // A handler that returns a Response (redirects, pages) sets its status there, not in `set`.
      const status = String(responseValue instanceof Response ? responseValue.status : (set.status ?? 200));
      const routeLabel = route || "unmatched";
      deps.metrics.requests.inc({ method: request.method, route: routeLabel, status });
      deps.metrics.latency.observe({ method: request.method, route: routeLabel }, seconds);
      deps.logger.info({
        request_id: facts.id,
        method: request.method,
        path: new URL(request.url).pathname,
        route: routeLabel,
        status: Number(status),
        ms: Math.round(seconds * 100_000) / 100,
      });
    });
}

function toAppError(code: string | number, error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof ValidationError || code === "VALIDATION") return fromValidation(error as ValidationError);
  if (code === "NOT_FOUND") return new AppError("NOT_FOUND", "Route not found");
  if (code === "PARSE")
    return new AppError("VALIDATION_ERROR", "body: request body is not valid JSON", {
      fields: [{ field: "body", message: "not valid JSON" }],
    });
  if (code === "INVALID_COOKIE_SIGNATURE") return new AppError("VALIDATION_ERROR", "Invalid cookie");
  return new AppError("INTERNAL_ERROR", "An unexpected error occurred");
}

/** Names every failing field, e.g. `query.per_page` or `body.events.3.event_type`. */
function fromValidation(error: ValidationError): AppError {
  const location = error.type === "params" ? "path" : error.type;
  const seen = new Set<string>();
  const fields: { field: string; message: string }[] = [];
  for (const e of error.all as { path?: string; message?: string; summary?: string }[]) {
    const path = (e.path ?? "").replace(/^\//, "").replaceAll("/", ".");
    const field = path ? `${location}.${path}` : location;
    if (seen.has(field)) continue;
    seen.add(field);
    fields.push({ field, message: e.summary ?? e.message ?? "is invalid" });
  }
  const first = fields[0];
  const message = first ? `${first.field}: ${first.message}` : `Invalid ${location}`;
  return new AppError("VALIDATION_ERROR", message, { fields });
}
