// Global HTTP behaviour: request ids, the response envelope, error mapping, metrics and access logs.
// Nothing here may throw: a hook that throws after the response is sent has nobody to answer it.
import { Elysia } from "elysia";
import { Envelope, successBody } from "./envelope";
import { beginRequest, requestFacts, requestIdOf } from "./request-context";
import { errorResponseBody } from "./error-mapping";
import { pathOf } from "./api-prefix";
import { inputGuard } from "./input-guard";
import { csvAnswer } from "./csv-report";
import type { Metrics } from "./metrics";
import type { Logger } from "./logger";

/**
 * A handler's Response (pages, redirects, the OpenAPI documents) is sent as it is; a report asked for as
 * CSV becomes its table (csv-report.ts); anything else is enveloped.
 */
export function httpPlumbing(deps: { metrics: Metrics; logger: Logger }) {
  return new Elysia({ name: "http-plumbing" })
    .onRequest(({ request, set }) => {
      set.headers["x-request-id"] = beginRequest(request).id;
    })
    .use(inputGuard())
    .onAfterHandle({ as: "global" }, ({ request, response, set }) => {
      if (response instanceof Response) return;
      const csv = csvAnswer(request, response);
      if (csv) return csv;
      if (response instanceof Envelope) {
        set.status = response.status;
        if (response.headers) Object.assign(set.headers, response.headers);
        return successBody(requestIdOf(request), response.data, response.success);
      }
      return successBody(requestIdOf(request), response);
    })
    .onError({ as: "global" }, ({ code, error, request, set, query, body: input, params }) => {
      const { status, headers, body } = errorResponseBody(code, error, { request, query, body: input, params }, deps.logger);
      set.status = status;
      Object.assign(set.headers, headers);
      return body;
    })
    .onAfterResponse({ as: "global" }, ({ request, route, set, responseValue }) => {
      try {
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
          path: pathOf(request.url),
          route: routeLabel,
          status: Number(status),
          ms: Math.round(seconds * 100_000) / 100,
        });
      } catch (err) {
        deps.logger.error({ msg: "request logging failed", error: String(err) });
      }
    });
}
