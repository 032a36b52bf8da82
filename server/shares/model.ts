// Wire schemas of shared dashboards (docs/sharing.md): the management API's bodies and answers, and
// the reports a share may show.
import { t, type Static } from "elysia";
import { MAX_FUNNEL_STEPS } from "../journey/model";
import { COMPARE } from "../reports/compare";

export const SHARE_SCOPES = ["account", "campaign", "link"] as const;
export type ShareScope = (typeof SHARE_SCOPES)[number];

/** The reports a share may show, each one widget of the page (and one or more data endpoints behind it). */
export const SHARE_REPORTS = [
  "summary",
  "timeseries",
  "geo",
  "devices",
  "referrers",
  "hourly",
  "link_stats",
  "funnel",
  "conversions",
  "paths",
  "retention",
  "realtime",
  "attribution",
] as const;
export type ShareReport = (typeof SHARE_REPORTS)[number];
export const CLICK_REPORTS = ["summary", "timeseries", "geo", "devices", "referrers", "hourly"] as const;
export type ClickReport = (typeof CLICK_REPORTS)[number];
/** The scopes each report may be shared in (the rest: every scope). */
export const REPORT_SCOPES: Partial<Record<ShareReport, readonly ShareScope[]>> = {
  link_stats: ["link"],
  funnel: ["link"],
  paths: ["link"],
  retention: ["link"],
  conversions: ["account", "link"],
  attribution: ["account", "campaign"],
};
/** The shown reports that compare when the share has `compare`. */
export const COMPARING_REPORTS = ["paths", "retention", "conversions"] as const;

/** Longest grace a rotation may give the previous token. */
export const MAX_GRACE_MINUTES = 1440;
export const DEFAULT_GRACE_MINUTES = 10;
export const MAX_ORIGINS = 20;

const Report = t.Union(
  SHARE_REPORTS.map((r) => t.Literal(r)),
  {
    description:
      "summary, timeseries, geo, devices, referrers, hourly (click reports); link_stats, funnel, paths and retention (a link share only; funnel with `funnel_steps`); conversions (not on a campaign share); attribution (an account or campaign share); realtime (the last 30 minutes' clicks, any share)",
  },
);
const Reports = t.Array(Report, { minItems: 1, maxItems: SHARE_REPORTS.length, uniqueItems: true });
const Origins = t.Array(
  t.String({ minLength: 1, maxLength: 300, description: "An origin: scheme, host and port, nothing else (https://client.example)" }),
  {
    maxItems: MAX_ORIGINS,
    description: "The origins whose pages may show the dashboard in an iframe (Content-Security-Policy frame-ancestors); empty: none",
  },
);
const FunnelSteps = t.Array(t.String({ minLength: 1, maxLength: 200, pattern: "^[^,]+$" }), {
  minItems: 1,
  maxItems: MAX_FUNNEL_STEPS,
  description: "The funnel report's steps: event names in order (required with the funnel report)",
});
const Compare = t.Union(
  COMPARE.map((c) => t.Literal(c)),
  {
    description:
      "The shown paths, retention and conversions reports also show the previous period (weekday-aligned) or the same period a year before, with the change",
  },
);
const Password = t.String({ minLength: 8, maxLength: 200, description: "Viewers enter it once per session; stored hashed" });
const Title = t.String({ minLength: 1, maxLength: 200 });
const ExpiresAt = t.String({ format: "date-time", description: "After this instant the share shows nothing" });

export const CreateShareBody = t.Object(
  {
    title: Title,
    scope: t.Union(
      SHARE_SCOPES.map((s) => t.Literal(s)),
      { description: "What the share shows: the whole account, one campaign's links (`campaign_id`) or one link (`link_id`)" },
    ),
    link_id: t.Optional(t.String({ format: "uuid", description: "With scope link" })),
    campaign_id: t.Optional(t.String({ format: "uuid", description: "With scope campaign" })),
    reports: Reports,
    funnel_steps: t.Optional(FunnelSteps),
    compare: t.Optional(Compare),
    enabled: t.Optional(t.Boolean({ description: "Default true" })),
    expires_at: t.Optional(ExpiresAt),
    password: t.Optional(Password),
    allowed_origins: t.Optional(Origins),
  },
  { additionalProperties: false },
);
export type CreateShareBody = Static<typeof CreateShareBody>;

export const UpdateShareBody = t.Object(
  {
    title: t.Optional(Title),
    reports: t.Optional(Reports),
    funnel_steps: t.Optional(FunnelSteps),
    compare: t.Optional(t.Union([Compare, t.Null()], { description: "null: no comparison" })),
    enabled: t.Optional(t.Boolean()),
    expires_at: t.Optional(t.Union([ExpiresAt, t.Null()], { description: "null: never expires" })),
    password: t.Optional(t.Union([Password, t.Null()], { description: "null removes the password" })),
    allowed_origins: t.Optional(Origins),
  },
  { additionalProperties: false },
);
export type UpdateShareBody = Static<typeof UpdateShareBody>;

export const RotateShareBody = t.Object(
  {
    grace_minutes: t.Optional(
      t.Integer({
        minimum: 0,
        maximum: MAX_GRACE_MINUTES,
        description: `How long the previous token keeps working, 0 to ${MAX_GRACE_MINUTES} minutes (default ${DEFAULT_GRACE_MINUTES})`,
      }),
    ),
  },
  { additionalProperties: false },
);

export const ShareIdParams = t.Object({ id: t.String({ format: "uuid" }) });

export const Share = t.Object(
  {
    id: t.String({ format: "uuid" }),
    title: t.String(),
    scope: t.Union(SHARE_SCOPES.map((s) => t.Literal(s))),
    link_id: t.Union([t.String({ format: "uuid" }), t.Null()]),
    campaign_id: t.Union([t.String({ format: "uuid" }), t.Null()]),
    reports: t.Array(Report),
    funnel_steps: t.Union([t.Array(t.String()), t.Null()]),
    compare: t.Union([Compare, t.Null()]),
    enabled: t.Boolean(),
    expires_at: t.Union([t.String({ format: "date-time" }), t.Null()]),
    has_password: t.Boolean(),
    allowed_origins: t.Array(t.String()),
    token_prefix: t.String({ description: "The token's first characters, to tell shares apart; the token itself is shown only once" }),
    previous_token_valid_until: t.Union([t.String({ format: "date-time" }), t.Null()], {
      description: "After a rotation: until when the previous token still works",
    }),
    created_at: t.String({ format: "date-time" }),
    updated_at: t.String({ format: "date-time" }),
  },
  { $id: "Share", additionalProperties: false },
);
export type ShareJson = Static<typeof Share>;

export const ShareWithToken = t.Object(
  {
    share: Share,
    token: t.String({ description: "Shown once: only its SHA-256 is stored" }),
    url: t.String({ format: "uri", description: "The dashboard's address, the token in it" }),
  },
  { $id: "ShareWithToken", additionalProperties: false },
);
export type ShareWithTokenJson = Static<typeof ShareWithToken>;
