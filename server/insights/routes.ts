// Insight report routes of a link (docs/insights.md, scope journey:read): paths and retention, each
// with `compare=previous|year`.
import { Elysia } from "elysia";
import { API_PREFIX } from "../http/api-prefix";
import type { Auth } from "../http/auth";
import { checkQueryBounds } from "../http/query-bounds";
import { operation, REPORT_ERRORS } from "../openapi/operation";
import type { Clickhouse } from "../storage/clickhouse/client";
import type { Postgres } from "../storage/postgres/client";
import {
  ComparablePaths,
  ComparableRetention,
  InsightLinkParams,
  PATHS_BOUNDS,
  PathsQuery,
  RETENTION_BOUNDS,
  RetentionQuery,
} from "./model";
import { getPaths, getRetention } from "./service";

const COMPARE_DOC =
  "`compare=previous` adds `comparison` with the previous period (shifted back by the period rounded up to whole weeks, so weekdays match), `compare=year` with the same period 364 days before.";

export function insightRoutes(deps: { pg: Postgres; ch: Clickhouse; auth: Auth }) {
  const reports = { db: deps.pg.db, ch: deps.ch };
  return (
    new Elysia({ name: "insights", prefix: API_PREFIX })
      .use(deps.auth)
      // GET /journey/links/{link_id}/paths
      .get(
        "/journey/links/:link_id/paths",
        ({ account, params, query }) => getPaths(reports, account.id, params.link_id, checkQueryBounds(query, PATHS_BOUNDS)),
        {
          scope: "journey:read",
          params: InsightLinkParams,
          query: PathsQuery,
          detail: operation({
            id: "getJourneyPaths",
            tag: "Journey",
            summary: "Paths of a link",
            description:
              "Paths forward from `start` or backward from `end` (either, matched as a funnel step: an event's event_name, its event_type or a page view's URL), " +
              "per visitor within the session of their first such event in the period; page views, custom events and conversions, consecutive repeats collapsed. " +
              `Step 1 counts the visitors the funnel's first step counts. \`period\` 24h, 7d, 30d (default) or 90d. ${COMPARE_DOC}`,
            responses: { 200: { description: "Steps with their nodes, and the edges between them", data: ComparablePaths } },
            errors: ["NOT_FOUND", ...REPORT_ERRORS],
          }),
        },
      )
      // GET /journey/links/{link_id}/retention
      .get(
        "/journey/links/:link_id/retention",
        ({ account, params, query }) => getRetention(reports, account.id, params.link_id, checkQueryBounds(query, RETENTION_BOUNDS)),
        {
          scope: "journey:read",
          params: InsightLinkParams,
          query: RetentionQuery,
          detail: operation({
            id: "getJourneyRetention",
            tag: "Journey",
            summary: "Weekly retention of a link",
            description:
              "Weekly cohorts (Monday, UTC) of visitors by the week of their first event on the link, with the visitors of each cohort who had an event in each following week. " +
              `\`weeks\` 1–26 (default 8). ${COMPARE_DOC.replace("the previous period", "the `weeks` weeks before")}`,
            responses: { 200: { description: "Cohorts with their returns", data: ComparableRetention } },
            errors: ["NOT_FOUND", ...REPORT_ERRORS],
          }),
        },
      )
  );
}
