// Wire schemas and JSON shapes of the webhooks API (spec "Webhook endpoint", "Webhook delivery").
import { t } from "elysia";
import { EVENT_TYPES } from "../events/bus";
import type { webhookDeliveries, webhookEndpoints } from "../storage/postgres/schema";

export type EndpointRow = typeof webhookEndpoints.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

const EventName = t.Union(EVENT_TYPES.map((e) => t.Literal(e)));
const Events = t.Array(EventName, { minItems: 1, uniqueItems: true });
const Url = t.String({ minLength: 1, maxLength: 2048 });
const Description = t.String({ maxLength: 500 });

export const CreateWebhookBody = t.Object(
  {
    url: Url,
    events: Events,
    description: t.Optional(Description),
  },
  { additionalProperties: false },
);

export const UpdateWebhookBody = t.Object(
  {
    url: t.Optional(Url),
    events: t.Optional(Events),
    description: t.Optional(t.Union([Description, t.Null()])),
    is_active: t.Optional(t.Boolean()),
  },
  { additionalProperties: false },
);

export const WebhookIdParams = t.Object({ id: t.String({ format: "uuid" }) });

export type CreateWebhookInput = typeof CreateWebhookBody.static;
export type UpdateWebhookInput = typeof UpdateWebhookBody.static;

/** The payload every delivery carries; `event` is an event type or `test`. */
export interface WebhookPayload {
  event: string;
  timestamp: string;
  data: Record<string, unknown>;
}

export const toEndpointJson = (e: EndpointRow) => ({
  id: e.id,
  url: e.url,
  events: e.events,
  description: e.description ?? null,
  is_active: e.isActive,
  consecutive_failures: e.consecutiveFailures,
  created_at: e.createdAt.toISOString(),
});

export const toDeliveryJson = (d: DeliveryRow) => ({
  id: d.id,
  endpoint_id: d.endpointId,
  event_type: d.eventType,
  payload: d.payload as WebhookPayload,
  status: d.status,
  attempt_number: d.attemptNumber,
  max_attempts: d.maxAttempts,
  http_status: d.httpStatus ?? null,
  response_body: d.responseBody ?? null,
  error_message: d.errorMessage ?? null,
  next_retry_at: d.nextRetryAt?.toISOString() ?? null,
  created_at: d.createdAt.toISOString(),
  delivered_at: d.deliveredAt?.toISOString() ?? null,
});
