// Journey routes: ingest (with its CORS) and the per-link reports.
import { Elysia, t } from "elysia";
import { API_PREFIX } from "../http/api-prefix";
import type { Auth } from "../http/auth";
import { Envelope, Paginated } from "../http/envelope";
import { effectiveLimits } from "../tiers";
import { ingestCorsHeaders, INGEST_PATH, preflightHeaders } from "./cors";
import { ingestJourneyBatch, type IngestDeps } from "./ingest";
import { checkQueryBounds } from "../http/query-bounds";
import * as m from "./model";
import { EVENTS_BOUNDS, EventsQuery, FunnelQuery, LinkParams, SESSIONS_BOUNDS, SessionsQuery, SummaryQuery } from "./model";
import { operation, REPORT_ERRORS } from "../openapi/operation";
import { ROLLING_COMPARE_DOC as COMPARE_DOC } from "../reports/compare-model";
import { getFunnel, getSummary, listEvents, listSessions } from "./service";
import type { Clickhouse } from "../storage/clickhouse/client";
import type { Postgres } from "../storage/postgres/client";
import { csvReports } from "../http/csv-report";
import * as csv from "./csv";

export function journeyRoutes(deps: { pg: Postgres; ch: Clickhouse; auth: Auth }, ingestDeps: IngestDeps) {
  const reports = { db: deps.pg.db, ch: deps.ch };
  return (
    new Elysia({ name: "journey", prefix: API_PREFIX })
      // Browsers read the answer (errors included) only with CORS headers, so they go on before auth runs.
      .onRequest(({ request, set }) => {
        if (request.method === "POST" && request.url.endsWith(INGEST_PATH)) {
          Object.assign(set.headers, ingestCorsHeaders(request.headers.get("origin")));
        }
      })
      // CORS preflight of POST /journey/events (no API key)
      .options(
        "/journey/events",
        ({ request }) => new Response(null, { status: 204, headers: preflightHeaders(request.headers.get("origin")) }),
      )
      .use(deps.auth)
      .use(csvReports)
      // POST /journey/events
      .post(
        "/journey/events",
        async ({ account, body, request }) => {
          const result = await ingestJourneyBatch(ingestDeps, {
            accountId: account.id,
            monthlyLimit: effectiveLimits(account.tier, account.limitOverrides).journeyEventsPerMonth,
            idempotencyKey: request.headers.get("x-idempotency-key"),
            body,
            nowMs: Date.now(),
          });
          return new Envelope(result.data, 202, true, result.headers);
        },
        {
          scope: { scope: "journey:write", rateLimit: false },
          detail: operation({
            id: "ingestJourneyEvents",
            tag: "Journey",
            summary: "Ingest journey events",
            description:
              "1 to 100 events; one bad event rejects the whole batch. Exempt from the hourly rate limit. Counts against the monthly " +
              "journey event limit: from 100% the answer carries `usage` and the X-Journey-* headers, above 150% the batch is refused (429).",
            body: {
              description:
                "A batch of events: `{ events: [...] }`, or the compact form the browser tracker sends, one JSON array " +
                "`[idempotency_key, ...events]` with each event a positional array (also as text/plain), which the server " +
                "expands into this form before the same validation (see docs/api.md, Compact form)",
              content: { "application/json": m.JourneyBatchSchema },
            },
            headers: [
              {
                name: "X-Idempotency-Key",
                description:
                  "1–255 printable ASCII characters; a batch repeated with the same key within 5 minutes is not stored again " +
                  "(202 with `already_processed`). A repeat that arrives while the first batch under the key is still being stored " +
                  "is answered 503 SERVICE_UNAVAILABLE with Retry-After: send it again later with the same key.",
                schema: t.String({ minLength: 1, maxLength: 255, pattern: "^[\\x21-\\x7e]+$" }),
              },
            ],
            responses: {
              202: {
                description: "The batch is durably queued",
                data: m.IngestAccepted,
                headers: ["X-Journey-Warning", "X-Journey-Usage"],
              },
            },
            errors: ["JOURNEY_LIMIT_EXCEEDED", "SERVICE_UNAVAILABLE"],
          }),
        },
      )
      // GET /journey/links/{link_id}/summary
      .get("/journey/links/:link_id/summary", ({ account, params, query }) => getSummary(reports, account.id, params.link_id, query), {
        scope: "journey:read",
        params: LinkParams,
        query: SummaryQuery,
        csv: csv.csvJourneySummary,
        detail: operation({
          id: "getJourneySummary",
          tag: "Journey",
          summary: "Journey summary of a link",
          description: `\`period\` is 24h, 7d, 30d (default) or 90d, in whole UTC hours. A deleted link's reports are 404, as an unknown link's. ${COMPARE_DOC}`,
          responses: { 200: { description: "Visitors, sessions, events and the top pages and events", data: m.ComparableJourneySummary } },
          errors: ["NOT_FOUND", ...REPORT_ERRORS],
        }),
      })
      // GET /journey/links/{link_id}/sessions
      .get(
        "/journey/links/:link_id/sessions",
        async ({ account, params, query }) =>
          Paginated.of(await listSessions(reports, account.id, params.link_id, checkQueryBounds(query, SESSIONS_BOUNDS))),
        {
          scope: "journey:read",
          params: LinkParams,
          query: SessionsQuery,
          csv: csv.csvJourneySessions,
          detail: operation({
            id: "listJourneySessions",
            tag: "Journey",
            summary: "Sessions of a link",
            description: "Newest first; `limit` 1–100 (default 20).",
            responses: { 200: { description: "One page of sessions", data: t.Array(m.JourneySession), paginated: true } },
            errors: ["NOT_FOUND", ...REPORT_ERRORS],
          }),
        },
      )
      // GET /journey/links/{link_id}/events
      .get(
        "/journey/links/:link_id/events",
        async ({ account, params, query }) =>
          Paginated.of(await listEvents(reports, account.id, params.link_id, checkQueryBounds(query, EVENTS_BOUNDS))),
        {
          scope: "journey:read",
          params: LinkParams,
          query: EventsQuery,
          csv: csv.csvJourneyEvents,
          detail: operation({
            id: "listJourneyEvents",
            tag: "Journey",
            summary: "Events of a link",
            description: "Newest first; `limit` 1–200 (default 50). Absent optional fields are null.",
            responses: { 200: { description: "One page of events", data: t.Array(m.JourneyEventItem), paginated: true } },
            errors: ["NOT_FOUND", ...REPORT_ERRORS],
          }),
        },
      )
      // GET /journey/links/{link_id}/funnel
      .get("/journey/links/:link_id/funnel", ({ account, params, query }) => getFunnel(reports, account.id, params.link_id, query), {
        scope: "journey:read",
        params: LinkParams,
        query: FunnelQuery,
        csv: csv.csvFunnel,
        detail: operation({
          id: "getJourneyFunnel",
          tag: "Journey",
          summary: "Funnel of a link",
          description: `\`steps\`: up to 20 comma-separated names; a step matches an event's \`event_name\`, its \`event_type\` or a page view's \`page_url\`, in strict order within the period (default 30d). ${COMPARE_DOC}`,
          responses: { 200: { description: "Visitors reaching each step", data: m.ComparableFunnel } },
          errors: ["NOT_FOUND", ...REPORT_ERRORS],
        }),
      })
  );
}
