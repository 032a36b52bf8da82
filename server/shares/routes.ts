// Shared dashboards. The management API (GET/POST /shares, GET/PATCH/DELETE /shares/{id},
// POST /shares/{id}/rotate; links:read / links:write), and the viewer's side outside the API:
// GET /share/{token} (the page), POST /share/{token} (the password), and the data behind the page,
// GET /share/{token}/data/…, where the token, the password session and the chosen reports are checked
// on every request.
import { Elysia, t } from "elysia";
import { API_PREFIX, pathOf } from "../http/api-prefix";
import type { Auth } from "../http/auth";
import { Envelope } from "../http/envelope";
import { clientAddress } from "../http/request-context";
import { enforceRateLimit } from "../http/rate-limit";
import { StrictQuery } from "../http/strict-query";
import { AppError, validationError } from "../errors";
import { MessageResult } from "../openapi/envelope";
import { operation } from "../openapi/operation";
import { TIER_LIMITS } from "../tiers";
import { BOT_FILTERS } from "../analytics/model";
import { PeriodSchema } from "../journey/model";
import { INTERVALS } from "../conversions/model";
import { ATTRIBUTION_BOUNDS, AttributionQuery } from "../conversions/attribution-model";
import { PATHS_BOUNDS, PathsQuery, RETENTION_BOUNDS, RetentionQuery } from "../insights/model";
import { checkQueryBounds } from "../http/query-bounds";
import { CompareParam } from "../reports/compare-model";
import { realtimeDepsOf } from "../realtime/read";
import type { SharesFeatureDeps } from "./feature";
import {
  CLICK_REPORTS,
  CreateShareBody,
  RotateShareBody,
  Share,
  ShareIdParams,
  ShareWithToken,
  UpdateShareBody,
  type ShareReport,
} from "./model";
import * as shares from "./service";
import * as viewer from "./viewer";
import { dashboardFigures } from "./figures";
import { dashboardPage, notAvailablePage, pageHeaders, passwordPage, SHARE_HEADERS, tooManyPage } from "./page";
import { createShareSessions } from "./session";

/** A share's data requests per hour, whatever the account's tier: a page view makes about ten. */
const SHARE_REQUESTS_PER_HOUR = 3_600;

export function sharesApiRoutes(deps: SharesFeatureDeps) {
  const d = { pg: deps.pg, baseUrl: deps.config.baseUrl };
  return new Elysia({ name: "shares-api", prefix: API_PREFIX })
    .use(deps.auth)
    .get("/shares", ({ account }) => shares.listShares(deps.pg, account.id), {
      scope: "links:read",
      detail: operation({
        id: "listShares",
        tag: "Shares",
        summary: "List shared dashboards",
        responses: {
          200: { description: "The account's shares, newest first (their tokens are never shown again)", data: t.Array(Share) },
        },
      }),
    })
    .post("/shares", async ({ principal, body }) => new Envelope(await shares.createShare(d, principal, body), 201), {
      scope: "links:write",
      body: CreateShareBody,
      detail: operation({
        id: "createShare",
        tag: "Shares",
        summary: "Share a dashboard",
        description:
          "A read-only dashboard of the account, a campaign or one link at `url` (`/share/{token}`). The token is in the answer once. " +
          "Each report needs the caller's own read permission (analytics:read; conversions:read for `conversions`).",
        responses: { 201: { description: "The share, its token and its address", data: ShareWithToken } },
        errors: ["NOT_FOUND"],
      }),
    })
    .get("/shares/:id", ({ account, params }) => shares.getShare(deps.pg, account.id, params.id), {
      scope: "links:read",
      params: ShareIdParams,
      detail: operation({
        id: "getShare",
        tag: "Shares",
        summary: "Get a shared dashboard",
        responses: { 200: { description: "The share", data: Share } },
        errors: ["NOT_FOUND"],
      }),
    })
    .patch("/shares/:id", ({ principal, params, body }) => shares.updateShare(deps.pg, principal, params.id, body), {
      scope: "links:write",
      params: ShareIdParams,
      body: UpdateShareBody,
      detail: operation({
        id: "updateShare",
        tag: "Shares",
        summary: "Update a shared dashboard",
        description:
          "`enabled: false` turns it off at once; `expires_at: null` and `password: null` remove them. A new password ends every viewer's session. " +
          "What it shows (`scope`, `link_id`, `campaign_id`) cannot change: share again instead.",
        responses: { 200: { description: "The updated share", data: Share } },
        errors: ["NOT_FOUND"],
      }),
    })
    .post("/shares/:id/rotate", ({ account, params, body }) => shares.rotateShare(d, account.id, params.id, body?.grace_minutes), {
      scope: "links:write",
      params: ShareIdParams,
      body: t.Optional(RotateShareBody),
      detail: operation({
        id: "rotateShare",
        tag: "Shares",
        summary: "Give a shared dashboard a new token",
        description:
          "The previous token keeps working for `grace_minutes` (default 10; 0 ends it now), then shows nothing; an earlier one ends at once.",
        responses: { 200: { description: "The share, its new token and address", data: ShareWithToken } },
        errors: ["NOT_FOUND"],
      }),
    })
    .delete("/shares/:id", ({ account, params }) => shares.deleteShare(deps.pg, account.id, params.id), {
      scope: "links:write",
      params: ShareIdParams,
      detail: operation({
        id: "deleteShare",
        tag: "Shares",
        summary: "Delete a shared dashboard",
        responses: { 200: { description: "Deleted", data: MessageResult } },
        errors: ["NOT_FOUND"],
      }),
    });
}

const html = (status: number, body: string, headers: Record<string, string>) => new Response(body, { status, headers });
// Any token reaches the handler, which answers every one it does not know with the same 404 page.
const TokenParams = t.Object({ token: t.String() });
const ClickQuery = StrictQuery({
  days: t.Optional(t.Integer()),
  bot_filter: t.Optional(t.Union(BOT_FILTERS.map((f) => t.Literal(f)))),
});
const ConversionQuery = StrictQuery({
  period: t.Optional(PeriodSchema),
  interval: t.Optional(t.Union(INTERVALS.map((i) => t.Literal(i)))),
  compare: CompareParam,
});
// The share's scope stands for the API's link and domain filters.
const { link_id: _link, domain_id: _domain, ...attributionFields } = AttributionQuery.properties;
const ShareAttributionQuery = StrictQuery(attributionFields);
const FunnelQuery = StrictQuery({ period: t.Optional(PeriodSchema), steps: t.Optional(t.String({ maxLength: 4100 })) });
const CONVERSION_PARTS = ["summary", "timeseries", "time-to-convert"] as const;
const hide = { hide: true };

export function shareViewerRoutes(deps: SharesFeatureDeps) {
  const sessions = createShareSessions({ appSecret: deps.config.appSecret, secure: deps.config.baseUrl.startsWith("https:") });
  const reports = { pg: deps.pg, ch: deps.ch };
  const live = realtimeDepsOf(deps);
  const subjectOf = (open: viewer.OpenShare) => ({
    shareId: open.row.id,
    tokenHash: open.tokenHash,
    passwordHash: open.row.passwordHash ?? "",
  });
  const hasSession = (open: viewer.OpenShare, request: Request) =>
    !open.row.passwordHash || sessions.verify(subjectOf(open), request.headers.get("cookie"));

  /** Every data request: the token, the session, the report, the share's hourly budget; 404 tells nothing apart. */
  const guard = async (request: Request, token: string, report: ShareReport) => {
    const open = await viewer.openShare(deps.pg, token);
    if (!open) throw new AppError("NOT_FOUND", "Dashboard not found");
    if (!hasSession(open, request)) throw new AppError("UNAUTHORIZED", "Enter the dashboard's password on its page first");
    if (!viewer.shows(open.row, report)) throw new AppError("NOT_FOUND", "This report is not shared");
    const subject = await viewer.shareSubject(deps.pg, open.row);
    if (!subject) throw new AppError("NOT_FOUND", "Dashboard not found");
    await countRequest(open.row, subject.account);
    return { row: open.row, account: subject.account };
  };
  /** The page and its data requests share one hourly budget per share. */
  const countRequest = (row: viewer.OpenShare["row"], account: { tier: keyof typeof TIER_LIMITS }) =>
    enforceRateLimit(deps.kv, `share:${row.id}`, Math.max(TIER_LIMITS[account.tier].requestsPerHour, SHARE_REQUESTS_PER_HOUR));

  return new Elysia({ name: "shares-viewer" })
    .onRequest(({ request, set }) => {
      if (pathOf(request.url).startsWith("/share/")) Object.assign(set.headers, SHARE_HEADERS);
    })
    .get(
      "/share/:token",
      async ({ request, params }) => {
        const open = await viewer.openShare(deps.pg, params.token);
        const subject = open && (await viewer.shareSubject(deps.pg, open.row));
        if (!open || !subject) return html(404, notAvailablePage(), pageHeaders([]));
        const headers = pageHeaders(open.row.allowedOrigins);
        if (!hasSession(open, request)) return html(200, passwordPage(open.row.title, params.token), headers);
        try {
          await countRequest(open.row, subject.account);
        } catch (err) {
          const wait = err instanceof AppError ? err.headers?.["retry-after"] : undefined;
          if (!wait) throw err;
          return html(429, tooManyPage(open.row.title, "requests", Number(wait)), { ...headers, "retry-after": wait });
        }
        const headlines = await dashboardFigures(reports, open.row, subject.account);
        const what = open.row.scope === "account" ? "All links" : `${open.row.scope === "link" ? "Link" : "Campaign"}: ${subject.name}`;
        const page = dashboardPage({
          title: open.row.title,
          subject: what,
          token: params.token,
          reports: open.row.reports as ShareReport[],
          funnelSteps: open.row.funnelSteps ?? [],
          compare: open.row.compare,
          headlines,
        });
        return html(200, page, headers);
      },
      { params: TokenParams, detail: hide },
    )
    .post(
      "/share/:token",
      async ({ request, params, body, server }) => {
        const open = await viewer.openShare(deps.pg, params.token);
        if (!open || !(await viewer.shareSubject(deps.pg, open.row))) return html(404, notAvailablePage(), pageHeaders([]));
        const headers = pageHeaders(open.row.allowedOrigins);
        const again = { ...headers, location: `/share/${params.token}` };
        if (!open.row.passwordHash) return html(303, "", again);
        try {
          await viewer.countPasswordAttempt(deps.kv, open.row.id, clientAddress(request, server, deps.config.trustProxy));
        } catch (err) {
          if (!(err instanceof AppError) || err.code !== "RATE_LIMIT_EXCEEDED") throw err;
          const wait = Number(err.headers?.["retry-after"] ?? 60);
          return html(429, tooManyPage(open.row.title, "attempts", wait), { ...headers, "retry-after": String(wait) });
        }
        if (!(await viewer.passwordMatches(open.row, body?.password ?? "")))
          return html(401, passwordPage(open.row.title, params.token, "Wrong password. Try again."), headers);
        return html(303, "", { ...again, "set-cookie": sessions.issue(subjectOf(open), params.token) });
      },
      { params: TokenParams, body: t.Optional(t.Object({ password: t.Optional(t.String({ maxLength: 200 })) })), detail: hide },
    )
    .get(
      "/share/:token/data/analytics/:report",
      async ({ request, params, query }) => {
        if (params.report === "realtime") {
          const { row } = await guard(request, params.token, "realtime");
          return viewer.realtimeClicks(live, row);
        }
        const report = params.report as (typeof CLICK_REPORTS)[number];
        if (!CLICK_REPORTS.includes(report)) throw new AppError("NOT_FOUND", "This report is not shared");
        const { row, account } = await guard(request, params.token, report);
        return viewer.clickReport(reports, row, account, report, query);
      },
      { params: t.Object({ token: t.String(), report: t.String({ maxLength: 40 }) }), query: ClickQuery, detail: hide },
    )
    .get(
      "/share/:token/data/links/shared/stats",
      async ({ request, params }) => viewer.linkStats(reports, (await guard(request, params.token, "link_stats")).row),
      { params: TokenParams, query: StrictQuery({}), detail: hide },
    )
    .get(
      "/share/:token/data/journey/links/shared/funnel",
      async ({ request, params, query }) => {
        const { row } = await guard(request, params.token, "funnel");
        // The widget sends the steps the page gave it; any other list is not the share's.
        if (query.steps !== undefined && query.steps !== (row.funnelSteps ?? []).join(","))
          throw validationError("query.steps", "are the share's own; leave them out or send them unchanged");
        return viewer.funnel(reports, row, query);
      },
      { params: TokenParams, query: FunnelQuery, detail: hide },
    )
    .get(
      "/share/:token/data/journey/links/shared/paths",
      async ({ request, params, query }) =>
        viewer.paths(reports, (await guard(request, params.token, "paths")).row, checkQueryBounds(query, PATHS_BOUNDS)),
      { params: TokenParams, query: PathsQuery, detail: hide },
    )
    .get(
      "/share/:token/data/journey/links/shared/retention",
      async ({ request, params, query }) =>
        viewer.retention(reports, (await guard(request, params.token, "retention")).row, checkQueryBounds(query, RETENTION_BOUNDS)),
      { params: TokenParams, query: RetentionQuery, detail: hide },
    )
    .get(
      "/share/:token/data/conversions/attribution",
      async ({ request, params, query }) =>
        viewer.attribution(reports, (await guard(request, params.token, "attribution")).row, checkQueryBounds(query, ATTRIBUTION_BOUNDS)),
      { params: TokenParams, query: ShareAttributionQuery, detail: hide },
    )
    .get(
      "/share/:token/data/conversions/:part",
      async ({ request, params, query }) => {
        const part = params.part as viewer.ConversionPart;
        if (!CONVERSION_PARTS.includes(part)) throw new AppError("NOT_FOUND", "This report is not shared");
        const { row } = await guard(request, params.token, "conversions");
        return viewer.conversionReport(reports, row, part, query);
      },
      {
        params: t.Object({ token: t.String(), part: t.String({ maxLength: 40 }) }),
        query: ConversionQuery,
        detail: hide,
      },
    );
}
