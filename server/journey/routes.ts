// Journey routes: ingest (with its CORS) and the per-link reports.
import { Elysia } from "elysia";
import type { AppDeps, FeatureDeps } from "../app";
import { Envelope } from "../http/envelope";
import { effectiveLimits } from "../tiers";
import { ingestCorsHeaders, INGEST_PATH, preflightHeaders } from "./cors";
import { IngestAdmission } from "./admission";
import { ingestJourneyBatch } from "./ingest";
import { checkQueryBounds } from "../http/query-bounds";
import { EVENTS_BOUNDS, EventsQuery, FunnelQuery, LinkParams, PeriodQuery, SESSIONS_BOUNDS, SessionsQuery } from "./model";
import { getFunnel, getSummary, listEvents, listSessions } from "./service";
import { journeyState } from "./state";

/** The journey backlog is held to what the flusher stores in this time (see admission.ts). */
const MAX_FLUSH_LAG_MS = 1000;

export function journeyRoutes(deps: FeatureDeps) {
  const state = journeyState(deps);
  const ingestDeps = {
    db: deps.pg.db,
    kv: deps.kv,
    spool: deps.streams.journey,
    links: state.links,
    usage: state.usage,
    journal: state.journal,
    admission: new IngestAdmission(deps.streams.journey, MAX_FLUSH_LAG_MS),
    metrics: deps.metrics,
    logger: deps.logger,
  };
  const reports = { db: deps.pg.db, ch: deps.ch };
  return (
    new Elysia({ name: "journey", prefix: "/public-api/v1" })
      // Browsers read the answer (errors included) only with CORS headers, so they go on before auth runs.
      .onRequest(({ request, set }) => {
        if (request.method === "POST" && request.url.endsWith(INGEST_PATH)) {
          Object.assign(set.headers, ingestCorsHeaders(request.headers.get("origin")));
        }
      })
      // API_SPEC "Journey": CORS preflight of POST /journey/events (no API key)
      .options(
        "/journey/events",
        ({ request }) => new Response(null, { status: 204, headers: preflightHeaders(request.headers.get("origin")) }),
      )
      .use(deps.auth)
      // API_SPEC "Journey": POST /journey/events
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
        { scope: { scope: "journey:write", rateLimit: false }, detail: { summary: "Ingest journey events" } },
      )
      // API_SPEC "Journey": GET /journey/links/{link_id}/summary
      .get("/journey/links/:link_id/summary", ({ account, params, query }) => getSummary(reports, account.id, params.link_id, query), {
        scope: "journey:read",
        params: LinkParams,
        query: PeriodQuery,
      })
      // API_SPEC "Journey": GET /journey/links/{link_id}/sessions
      .get(
        "/journey/links/:link_id/sessions",
        ({ account, params, query }) => listSessions(reports, account.id, params.link_id, checkQueryBounds(query, SESSIONS_BOUNDS)),
        { scope: "journey:read", params: LinkParams, query: SessionsQuery },
      )
      // API_SPEC "Journey": GET /journey/links/{link_id}/events
      .get(
        "/journey/links/:link_id/events",
        ({ account, params, query }) => listEvents(reports, account.id, params.link_id, checkQueryBounds(query, EVENTS_BOUNDS)),
        { scope: "journey:read", params: LinkParams, query: EventsQuery },
      )
      // API_SPEC "Journey": GET /journey/links/{link_id}/funnel
      .get("/journey/links/:link_id/funnel", ({ account, params, query }) => getFunnel(reports, account.id, params.link_id, query), {
        scope: "journey:read",
        params: LinkParams,
        query: FunnelQuery,
      })
  );
}

/** Background work: persists the monthly usage counters; the returned stop writes the last ones. */
export function startJourney(deps: AppDeps) {
  const state = journeyState(deps);
  return async () => {
    await state.usage.stop();
    state.journal?.close();
  };
}
