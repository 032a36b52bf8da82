// Webhooks API (spec "Endpoints" → "Webhooks"): endpoint CRUD, test sends and delivery history.
import { Elysia, t } from "elysia";
import { API_PREFIX, type FeatureDeps } from "../app";
import { Envelope } from "../http/envelope";
import { MessageResult } from "../openapi/envelope";
import { operation } from "../openapi/operation";
import * as m from "./model";
import * as service from "./service";

export function webhookRoutes(deps: FeatureDeps) {
  return (
    new Elysia({ prefix: API_PREFIX })
      .use(deps.auth)
      // Webhooks: GET /webhooks
      .get("/webhooks", ({ account }) => service.listWebhooks(deps, account.id), {
        scope: "webhooks:read",
        detail: operation({
          id: "listWebhooks",
          tag: "Webhooks",
          summary: "List webhook endpoints",
          description: "Newest first; secrets are never listed.",
          responses: { 200: { description: "The account's endpoints", data: t.Array(m.WebhookEndpoint) } },
        }),
      })
      // Webhooks: POST /webhooks
      .post("/webhooks", async ({ account, body }) => new Envelope(await service.createWebhook(deps, account, body), 201), {
        scope: "webhooks:write",
        body: m.CreateWebhookBody,
        detail: operation({
          id: "createWebhook",
          tag: "Webhooks",
          summary: "Create a webhook endpoint",
          description: "HTTPS URLs on public addresses only. The answer carries `secret` (whsec_…), shown only here.",
          responses: { 201: { description: "The endpoint and its signing secret", data: m.CreatedWebhookEndpoint } },
          errors: ["QUOTA_EXCEEDED"],
        }),
      })
      // Webhooks: GET /webhooks/{id}
      .get(
        "/webhooks/:id",
        async ({ account, params }) => m.toEndpointJson(await service.getEndpointOrThrow(deps, account.id, params.id)),
        {
          scope: "webhooks:read",
          params: m.WebhookIdParams,
          detail: operation({
            id: "getWebhook",
            tag: "Webhooks",
            summary: "Get a webhook endpoint",
            responses: { 200: { description: "The endpoint (no secret)", data: m.WebhookEndpoint } },
            errors: ["NOT_FOUND"],
          }),
        },
      )
      // Webhooks: PATCH /webhooks/{id}
      .patch("/webhooks/:id", ({ account, params, body }) => service.updateWebhook(deps, account.id, params.id, body), {
        scope: "webhooks:write",
        params: m.WebhookIdParams,
        body: m.UpdateWebhookBody,
        detail: operation({
          id: "updateWebhook",
          tag: "Webhooks",
          summary: "Update a webhook endpoint",
          description: "`events` replaces the list; `is_active: true` re-enables the endpoint and resets `consecutive_failures`.",
          responses: { 200: { description: "The updated endpoint", data: m.WebhookEndpoint } },
          errors: ["NOT_FOUND"],
        }),
      })
      // Webhooks: DELETE /webhooks/{id}
      .delete("/webhooks/:id", ({ account, params }) => service.deleteWebhook(deps, account.id, params.id), {
        scope: "webhooks:write",
        params: m.WebhookIdParams,
        detail: operation({
          id: "deleteWebhook",
          tag: "Webhooks",
          summary: "Delete a webhook endpoint",
          description: "Its delivery history goes too.",
          responses: { 200: { description: "Deleted", data: MessageResult } },
          errors: ["NOT_FOUND"],
        }),
      })
      // Webhooks: POST /webhooks/{id}/test
      .post("/webhooks/:id/test", ({ account, params }) => service.sendTestDelivery(deps, account.id, params.id), {
        scope: "webhooks:write",
        params: m.WebhookIdParams,
        detail: operation({
          id: "testWebhook",
          tag: "Webhooks",
          summary: "Send a test delivery",
          description: "Sends event `test` now; a failed attempt is retried like any other.",
          responses: { 200: { description: "The delivery after the attempt", data: m.WebhookDelivery } },
          errors: ["NOT_FOUND"],
        }),
      })
      // Webhooks: GET /webhooks/{id}/deliveries
      .get("/webhooks/:id/deliveries", ({ account, params }) => service.listDeliveries(deps, account.id, params.id), {
        scope: "webhooks:read",
        params: m.WebhookIdParams,
        detail: operation({
          id: "listWebhookDeliveries",
          tag: "Webhooks",
          summary: "Recent deliveries of an endpoint",
          description: "The 50 most recent, newest first, without pagination.",
          responses: { 200: { description: "Deliveries", data: t.Array(m.WebhookDelivery) } },
          errors: ["NOT_FOUND"],
        }),
      })
  );
}
