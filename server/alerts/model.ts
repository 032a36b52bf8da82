// Wire schemas of email reports and alerts (docs/notifications.md): the subscriptions and alerts API's
// bodies and answers, and the kinds of alert.
import { t, type Static } from "elysia";
import type { alerts, reportSubscriptions } from "../storage/postgres/schema";

export type SubscriptionRow = typeof reportSubscriptions.$inferSelect;
export type AlertRow = typeof alerts.$inferSelect;

/**
 * visitors_above: distinct visitors in the last 5 minutes above `threshold`; visitors_below: in the
 * last 12 hours below `threshold`; conversion_drop (a link only): the last 24 hours' conversion rate at
 * least `threshold` percent below the last 7 days' rate.
 */
export const ALERT_KINDS = ["visitors_above", "visitors_below", "conversion_drop"] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];
export const MAX_RECIPIENTS = 10;
export const MAX_SUBSCRIPTIONS = 50;
export const MAX_ALERTS = 50;

const Email = t.String({
  format: "email",
  minLength: 3,
  maxLength: 254,
  description: "Any address; it need not be a member of the account",
});
const Recipients = t.Array(Email, {
  maxItems: MAX_RECIPIENTS,
  uniqueItems: true,
  description: "Who gets the alert by email (may be empty: the webhook event `alert.triggered` only)",
});

export const CreateSubscriptionBody = t.Object(
  {
    email: Email,
    weekly: t.Optional(t.Boolean({ description: "The weekly report (Monday to Sunday, UTC), sent on Monday; default true" })),
    monthly: t.Optional(t.Boolean({ description: "The monthly report (a calendar month, UTC), sent on the 1st; default false" })),
  },
  { additionalProperties: false },
);
export type CreateSubscriptionBody = Static<typeof CreateSubscriptionBody>;
export const UpdateSubscriptionBody = t.Object(
  { weekly: t.Optional(t.Boolean()), monthly: t.Optional(t.Boolean()) },
  { additionalProperties: false },
);
export type UpdateSubscriptionBody = Static<typeof UpdateSubscriptionBody>;

export const Subscription = t.Object(
  {
    id: t.String({ format: "uuid" }),
    email: t.String(),
    weekly: t.Boolean(),
    monthly: t.Boolean(),
    last_weekly_period: t.Union([t.String({ description: "First day (YYYY-MM-DD) of the last week sent or skipped" }), t.Null()]),
    last_monthly_period: t.Union([t.String(), t.Null()]),
    created_at: t.String({ format: "date-time" }),
  },
  { $id: "ReportSubscription", additionalProperties: false },
);

const Kind = t.Union(
  ALERT_KINDS.map((k) => t.Literal(k)),
  {
    description:
      "visitors_above: visitors in the last 5 minutes above threshold; visitors_below: visitors in the last 12 hours below threshold; " +
      "conversion_drop (with link_id): the last 24 hours' conversion rate at least threshold percent below the last 7 days' rate",
  },
);
const Threshold = t.Number({ minimum: 0, maximum: 1_000_000_000, description: "Visitors, or percent (1 to 100) for conversion_drop" });

export const CreateAlertBody = t.Object(
  {
    kind: Kind,
    threshold: Threshold,
    link_id: t.Optional(
      t.String({ format: "uuid", description: "Only this link's visitors (required for conversion_drop); none: the account" }),
    ),
    recipients: t.Optional(Recipients),
    enabled: t.Optional(t.Boolean({ description: "Default true" })),
  },
  { additionalProperties: false },
);
export type CreateAlertBody = Static<typeof CreateAlertBody>;
export const UpdateAlertBody = t.Object(
  { threshold: t.Optional(Threshold), recipients: t.Optional(Recipients), enabled: t.Optional(t.Boolean()) },
  { additionalProperties: false },
);
export type UpdateAlertBody = Static<typeof UpdateAlertBody>;

export const Alert = t.Object(
  {
    id: t.String({ format: "uuid" }),
    kind: Kind,
    threshold: t.Number(),
    link_id: t.Union([t.String({ format: "uuid" }), t.Null()]),
    recipients: t.Array(t.String()),
    enabled: t.Boolean(),
    last_triggered_at: t.Union([t.String({ format: "date-time" }), t.Null()]),
    last_value: t.Union([t.Number({ description: "The figure that triggered it last" }), t.Null()]),
    created_at: t.String({ format: "date-time" }),
  },
  { $id: "Alert", additionalProperties: false },
);

export const IdParams = t.Object({ id: t.String({ format: "uuid" }) });

export const subscriptionJson = (r: SubscriptionRow) => ({
  id: r.id,
  email: r.email,
  weekly: r.weekly,
  monthly: r.monthly,
  last_weekly_period: r.weeklySentFor,
  last_monthly_period: r.monthlySentFor,
  created_at: r.createdAt.toISOString(),
});

export const alertJson = (r: AlertRow) => ({
  id: r.id,
  kind: r.kind as AlertKind,
  threshold: r.threshold,
  link_id: r.linkId,
  recipients: r.recipients,
  enabled: r.enabled,
  last_triggered_at: r.lastTriggeredAt?.toISOString() ?? null,
  last_value: r.lastValue,
  created_at: r.createdAt.toISOString(),
});
