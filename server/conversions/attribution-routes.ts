// GET /conversions/attribution (docs/insights.md "Attribution", scope conversions:read).
import { Elysia } from "elysia";
import { API_PREFIX } from "../http/api-prefix";
import type { Auth } from "../http/auth";
import { csvReports } from "../http/csv-report";
import { checkQueryBounds } from "../http/query-bounds";
import { operation, REPORT_ERRORS } from "../openapi/operation";
import type { Clickhouse } from "../storage/clickhouse/client";
import type { Postgres } from "../storage/postgres/client";
import { csvAttribution } from "./attribution-csv";
import { ATTRIBUTION_BOUNDS, Attribution, AttributionQuery } from "./attribution-model";
import { getAttribution } from "./attribution-service";

export function attributionRoutes(deps: { pg: Postgres; ch: Clickhouse; auth: Auth }) {
  const reports = { db: deps.pg.db, ch: deps.ch };
  return new Elysia({ name: "conversions-attribution", prefix: API_PREFIX })
    .use(deps.auth)
    .use(csvReports)
    .get(
      "/conversions/attribution",
      ({ account, query }) => getAttribution(reports, account.id, checkQueryBounds(query, ATTRIBUTION_BOUNDS)),
      {
        scope: "conversions:read",
        query: AttributionQuery,
        csv: csvAttribution,
        detail: operation({
          id: "getConversionAttribution",
          tag: "Conversions",
          summary: "Conversions and revenue attributed to links or campaigns",
          description:
            "Every conversion in the period is credited to the links whose clicks brought its visitor within `window_days` (1–90, default 30) before it, " +
            "across sessions and days: `model=first` (default) the earliest such click, `last` the latest, `linear` equal shares of each link clicked. " +
            "A click that brought a visitor is the short-link click whose id is the journey `visitor_id` (the tracker's `svc_ref` hand-off) or else the visitor's first journey event on a link. " +
            "Conversions with no such click in the window form the `direct / none` row, so every model's totals equal the summary's. " +
            "`group_by=link` (default) or `campaign` (the link's campaign now; links without one in `no campaign`). " +
            "Scoped like the other conversion reports: the account, or the conversions recorded on `link_id` / `domain_id` (404 when not the account's or a deleted link); credit may go to any link of the account. `period` 24h, 7d, 30d (default) or 90d.",
          responses: { 200: { description: "Credited conversions and revenue per link or campaign", data: Attribution } },
          errors: ["NOT_FOUND", ...REPORT_ERRORS],
        }),
      },
    );
}
