// Realtime routes (docs/insights.md "Realtime"): clicks of the account or a link (analytics:read) and
// journey events of a link (journey:read), the last 5 minutes and the last 30 minute by minute.
import { Elysia } from "elysia";
import { API_PREFIX } from "../http/api-prefix";
import { StrictQuery } from "../http/strict-query";
import type { Auth } from "../http/auth";
import { operation, REPORT_ERRORS } from "../openapi/operation";
import { Realtime, RealtimeClicksQuery, RealtimeLinkParams } from "./model";
import { getClicksRealtime, getJourneyRealtime, type RealtimeDeps } from "./service";

const ABOUT =
  "`visitors` and `events` count the last 5 minutes (visitors distinct over the whole 5 minutes), `minutes` the last 30 minutes one by one (visitors distinct within each minute). " +
  "What the answering instance has accepted and not yet stored in ClickHouse is counted too, once (`unflushed`); with several instances, each one's not-yet-stored records appear once they are stored (about a second).";

export function realtimeRoutes(deps: RealtimeDeps & { auth: Auth }) {
  return (
    new Elysia({ name: "realtime", prefix: API_PREFIX })
      .use(deps.auth)
      // GET /analytics/realtime
      .get("/analytics/realtime", ({ account, query }) => getClicksRealtime(deps, account.id, query), {
        scope: "analytics:read",
        query: RealtimeClicksQuery,
        detail: operation({
          id: "getRealtimeClicks",
          tag: "Analytics",
          summary: "Realtime clicks",
          description: `Human clicks of the account or of one link (\`link_id\`); visitors by visitor hash. ${ABOUT}`,
          responses: { 200: { description: "The last 5 and 30 minutes", data: Realtime } },
          errors: ["NOT_FOUND", ...REPORT_ERRORS],
        }),
      })
      // GET /journey/links/{link_id}/realtime
      .get("/journey/links/:link_id/realtime", ({ account, params }) => getJourneyRealtime(deps, account.id, params.link_id), {
        scope: "journey:read",
        params: RealtimeLinkParams,
        query: StrictQuery({}),
        detail: operation({
          id: "getJourneyRealtime",
          tag: "Journey",
          summary: "Realtime journey events of a link",
          description: `Journey events of every type on the link, by their timestamp; visitors by \`visitor_id\`. ${ABOUT}`,
          responses: { 200: { description: "The last 5 and 30 minutes", data: Realtime } },
          errors: ["NOT_FOUND", ...REPORT_ERRORS],
        }),
      })
  );
}
