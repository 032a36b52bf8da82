// Wire schemas and JSON shapes of the webhooks API: endpoints, deliveries and the events they carry.
import { t, type Static } from "elysia";
import type { TSchema } from "@sinclair/typebox";
import type { webhookDeliveries, webhookEndpoints } from "../storage/postgres/schema";
import { EVENT_TYPES, type EventType } from "./event-types";

export { EVENT_TYPES, type EventType };

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

// Responses (spec "Webhook endpoint", "Webhook delivery"); toEndpointJson and toDeliveryJson return
// exactly these, and the tests check every answer against them.
const Time = t.String({ format: "date-time" });
const Nullable = <T extends TSchema>(s: T) => t.Union([s, t.Null()]);
const endpointFields = {
  id: t.String({ format: "uuid" }),
  url: t.String(),
  events: t.Array(EventName),
  description: Nullable(t.String()),
  is_active: t.Boolean(),
  consecutive_failures: t.Integer({ minimum: 0 }),
  created_at: Time,
};
export const WebhookEndpoint = t.Object(endpointFields, { $id: "WebhookEndpoint", additionalProperties: false });
export const CreatedWebhookEndpoint = t.Object(
  { ...endpointFields, secret: t.String({ description: "whsec_… (Standard Webhooks format); shown only here" }) },
  { $id: "CreatedWebhookEndpoint", additionalProperties: false },
);
export const WebhookDelivery = t.Object(
  {
    id: t.String({ format: "uuid" }),
    endpoint_id: t.String({ format: "uuid" }),
    event_type: t.String({ description: "An event type, or `test`" }),
    payload: t.Object(
      { event: t.String(), timestamp: Time, data: t.Record(t.String(), t.Unknown()) },
      { description: "The exact payload sent", additionalProperties: false },
    ),
    status: t.Union([t.Literal("pending"), t.Literal("retrying"), t.Literal("delivered"), t.Literal("failed")]),
    attempt_number: t.Integer({ minimum: 0 }),
    max_attempts: t.Integer({ minimum: 1 }),
    http_status: Nullable(t.Integer()),
    response_body: Nullable(t.String({ description: "The first 1 KB of the receiver's answer" })),
    error_message: Nullable(t.String()),
    next_retry_at: Nullable(Time),
    created_at: Time,
    delivered_at: Nullable(Time),
  },
  { $id: "WebhookDelivery", additionalProperties: false },
);
export type WebhookEndpointJson = Static<typeof WebhookEndpoint>;
export type WebhookDeliveryJson = Static<typeof WebhookDelivery>;

export const toEndpointJson = (e: EndpointRow): WebhookEndpointJson => ({
  id: e.id,
  url: e.url,
  events: e.events as WebhookEndpointJson["events"],
  description: e.description ?? null,
  is_active: e.isActive,
  consecutive_failures: e.consecutiveFailures,
  created_at: e.createdAt.toISOString(),
});

export const toDeliveryJson = (d: DeliveryRow): WebhookDeliveryJson => ({
  id: d.id,
  endpoint_id: d.endpointId,
  event_type: d.eventType,
  payload: d.payload as WebhookPayload,
  status: d.status as WebhookDeliveryJson["status"],
  attempt_number: d.attemptNumber,
  max_attempts: d.maxAttempts,
  http_status: d.httpStatus ?? null,
  response_body: d.responseBody ?? null,
  error_message: d.errorMessage ?? null,
  next_retry_at: d.nextRetryAt?.toISOString() ?? null,
  created_at: d.createdAt.toISOString(),
  delivered_at: d.deliveredAt?.toISOString() ?? null,
});
