// Email reports and alerts. The API: GET/POST /report-subscriptions, GET/PATCH/DELETE
// /report-subscriptions/{id}, and the same under /alerts (webhooks:read to read, webhooks:write to
// change: both send the account's figures out of the service, as a webhook endpoint does). Outside the
// API, /unsubscribe/{token}: the page a report's link opens, and its one-click POST (RFC 8058).
import { Elysia, t } from "elysia";
import { API_PREFIX } from "../http/api-prefix";
import { Envelope } from "../http/envelope";
import { MessageResult } from "../openapi/envelope";
import { operation } from "../openapi/operation";
import type { AlertsFeatureDeps } from "./feature";
import {
  Alert,
  CreateAlertBody,
  CreateSubscriptionBody,
  IdParams,
  MAX_ALERTS,
  MAX_SUBSCRIPTIONS,
  Subscription,
  UpdateAlertBody,
  UpdateSubscriptionBody,
} from "./model";
import * as service from "./service";
import { confirmPage, donePage, PAGE_HEADERS, unknownPage } from "./unsubscribe-page";

const TAG = "Notifications";

export function alertsApiRoutes(deps: AlertsFeatureDeps) {
  const { pg } = deps;
  const sub = { pg, appSecret: deps.config.appSecret };
  return new Elysia({ name: "alerts-api", prefix: API_PREFIX })
    .use(deps.auth)
    .get("/report-subscriptions", ({ account }) => service.listSubscriptions(pg, account.id), {
      scope: "webhooks:read",
      detail: operation({
        id: "listReportSubscriptions",
        tag: TAG,
        summary: "List report subscriptions",
        responses: { 200: { description: "Who gets the account's weekly and monthly reports, oldest first", data: t.Array(Subscription) } },
      }),
    })
    .post(
      "/report-subscriptions",
      async ({ account, body }) => new Envelope(await service.createSubscription(sub, account.id, body), 201),
      {
        scope: "webhooks:write",
        body: CreateSubscriptionBody,
        detail: operation({
          id: "createReportSubscription",
          tag: TAG,
          summary: "Subscribe an address to the reports",
          description:
            "The weekly report (sent on Monday for Monday to Sunday, UTC) and/or the monthly one (sent on the 1st): clicks, visitors, conversions " +
            "and revenue with their change against the period before; top links, sources and countries. Each mail carries a link that " +
            `unsubscribes the address without signing in. The first report is the one of the period that ends next. At most ${MAX_SUBSCRIPTIONS} per account.`,
          responses: { 201: { description: "The subscription", data: Subscription } },
          errors: ["CONFLICT", "QUOTA_EXCEEDED"],
        }),
      },
    )
    .get("/report-subscriptions/:id", ({ account, params }) => service.getSubscription(pg, account.id, params.id), {
      scope: "webhooks:read",
      params: IdParams,
      detail: operation({
        id: "getReportSubscription",
        tag: TAG,
        summary: "Get a report subscription",
        responses: { 200: { description: "The subscription", data: Subscription } },
        errors: ["NOT_FOUND"],
      }),
    })
    .patch("/report-subscriptions/:id", ({ account, params, body }) => service.updateSubscription(pg, account.id, params.id, body), {
      scope: "webhooks:write",
      params: IdParams,
      body: UpdateSubscriptionBody,
      detail: operation({
        id: "updateReportSubscription",
        tag: TAG,
        summary: "Choose the reports of a subscription",
        responses: { 200: { description: "The subscription", data: Subscription } },
        errors: ["NOT_FOUND"],
      }),
    })
    .delete("/report-subscriptions/:id", ({ account, params }) => service.deleteSubscription(pg, account.id, params.id), {
      scope: "webhooks:write",
      params: IdParams,
      detail: operation({
        id: "deleteReportSubscription",
        tag: TAG,
        summary: "Delete a report subscription",
        responses: { 200: { description: "Deleted", data: MessageResult } },
        errors: ["NOT_FOUND"],
      }),
    })
    .get("/alerts", ({ account }) => service.listAlerts(pg, account.id), {
      scope: "webhooks:read",
      detail: operation({
        id: "listAlerts",
        tag: TAG,
        summary: "List alerts",
        responses: { 200: { description: "The account's alerts, oldest first", data: t.Array(Alert) } },
      }),
    })
    .post("/alerts", async ({ account, body }) => new Envelope(await service.createAlert(pg, account.id, body), 201), {
      scope: "webhooks:write",
      body: CreateAlertBody,
      detail: operation({
        id: "createAlert",
        tag: TAG,
        summary: "Set an alert",
        description:
          "Checked every 15 minutes; when it holds, the alert triggers at most once per 12 hours: an email to each recipient and the webhook " +
          `event \`alert.triggered\` (to the endpoints that subscribe to it). At most ${MAX_ALERTS} per account.`,
        responses: { 201: { description: "The alert", data: Alert } },
        errors: ["NOT_FOUND", "QUOTA_EXCEEDED"],
      }),
    })
    .get("/alerts/:id", ({ account, params }) => service.getAlert(pg, account.id, params.id), {
      scope: "webhooks:read",
      params: IdParams,
      detail: operation({
        id: "getAlert",
        tag: TAG,
        summary: "Get an alert",
        responses: { 200: { description: "The alert", data: Alert } },
        errors: ["NOT_FOUND"],
      }),
    })
    .patch("/alerts/:id", ({ account, params, body }) => service.updateAlert(pg, account.id, params.id, body), {
      scope: "webhooks:write",
      params: IdParams,
      body: UpdateAlertBody,
      detail: operation({
        id: "updateAlert",
        tag: TAG,
        summary: "Update an alert",
        description: "The kind and the link cannot change: set a new alert instead.",
        responses: { 200: { description: "The alert", data: Alert } },
        errors: ["NOT_FOUND"],
      }),
    })
    .delete("/alerts/:id", ({ account, params }) => service.deleteAlert(pg, account.id, params.id), {
      scope: "webhooks:write",
      params: IdParams,
      detail: operation({
        id: "deleteAlert",
        tag: TAG,
        summary: "Delete an alert",
        responses: { 200: { description: "Deleted", data: MessageResult } },
        errors: ["NOT_FOUND"],
      }),
    });
}

const TokenParams = t.Object({ token: t.String({ maxLength: 100 }) });
/** The form posts nothing; a mail client's one-click unsubscribe posts `List-Unsubscribe=One-Click` (RFC 8058). */
const OneClickBody = t.Optional(t.Object({ "List-Unsubscribe": t.Optional(t.String({ maxLength: 20 })) }));
const page = (status: number, body: string) => new Response(body, { status, headers: PAGE_HEADERS });

export function unsubscribeRoutes(deps: AlertsFeatureDeps) {
  return new Elysia({ name: "alerts-unsubscribe" })
    .get(
      "/unsubscribe/:token",
      async ({ params }) => {
        const row = await service.findByUnsubscribeToken(deps.pg, params.token);
        return row ? page(200, confirmPage(row.email, params.token)) : page(404, unknownPage());
      },
      { params: TokenParams, detail: { hide: true } },
    )
    .post(
      "/unsubscribe/:token",
      async ({ params }) => {
        const row = await service.unsubscribe(deps.pg, params.token);
        return row ? page(200, donePage(row.email)) : page(404, unknownPage());
      },
      { params: TokenParams, body: OneClickBody, detail: { hide: true } },
    );
}
