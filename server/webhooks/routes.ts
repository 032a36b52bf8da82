// Webhooks API (spec "Endpoints" → "Webhooks"): endpoint CRUD, test sends and delivery history.
import { Elysia } from "elysia";
import { API_PREFIX, type FeatureDeps } from "../app";
import { Envelope } from "../http/envelope";
import * as m from "./model";
import * as service from "./service";

export function webhookRoutes(deps: FeatureDeps) {
  const detail = (description: string) => ({ tags: ["Webhooks"], description });
  return (
    new Elysia({ prefix: API_PREFIX })
      .use(deps.auth)
      // Webhooks: GET /webhooks
      .get("/webhooks", ({ account }) => service.listWebhooks(deps, account.id), {
        scope: "webhooks:read",
        detail: detail("The account's webhook endpoints, newest first (no secrets)."),
      })
      // Webhooks: POST /webhooks
      .post("/webhooks", async ({ account, body }) => new Envelope(await service.createWebhook(deps, account, body), 201), {
        scope: "webhooks:write",
        body: m.CreateWebhookBody,
        detail: detail(
          "Creates an endpoint. The response carries `secret` (whsec_…), shown only here. 403 QUOTA_EXCEEDED past the tier's endpoint count.",
        ),
      })
      // Webhooks: GET /webhooks/{id}
      .get(
        "/webhooks/:id",
        async ({ account, params }) => m.toEndpointJson(await service.getEndpointOrThrow(deps, account.id, params.id)),
        {
          scope: "webhooks:read",
          params: m.WebhookIdParams,
          detail: detail("One webhook endpoint (no secret)."),
        },
      )
      // Webhooks: PATCH /webhooks/{id}
      .patch("/webhooks/:id", ({ account, params, body }) => service.updateWebhook(deps, account.id, params.id, body), {
        scope: "webhooks:write",
        params: m.WebhookIdParams,
        body: m.UpdateWebhookBody,
        detail: detail(
          "Updates an endpoint; `events` replaces the list; `is_active` true re-enables it and resets `consecutive_failures`.",
        ),
      })
      // Webhooks: DELETE /webhooks/{id}
      .delete("/webhooks/:id", ({ account, params }) => service.deleteWebhook(deps, account.id, params.id), {
        scope: "webhooks:write",
        params: m.WebhookIdParams,
        detail: detail("Deletes an endpoint and its delivery history. Answers `{ message }`."),
      })
      // Webhooks: POST /webhooks/{id}/test
      .post("/webhooks/:id/test", ({ account, params }) => service.sendTestDelivery(deps, account.id, params.id), {
        scope: "webhooks:write",
        params: m.WebhookIdParams,
        detail: detail("Sends event `test` now and answers with the delivery record after the attempt."),
      })
      // Webhooks: GET /webhooks/{id}/deliveries
      .get("/webhooks/:id/deliveries", ({ account, params }) => service.listDeliveries(deps, account.id, params.id), {
        scope: "webhooks:read",
        params: m.WebhookIdParams,
        detail: detail("The 50 most recent deliveries, newest first."),
      })
  );
}
