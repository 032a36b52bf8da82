// Query and answer of the attribution report (docs/insights.md "Attribution").
import { t, type Static } from "elysia";
import { StrictQuery } from "../http/strict-query";
import { PeriodSchema } from "../journey/model";

export const ATTRIBUTION_MODELS = ["first", "last", "linear"] as const;
export type AttributionModel = (typeof ATTRIBUTION_MODELS)[number];
export const ATTRIBUTION_GROUPS = ["link", "campaign"] as const;
export type AttributionGroup = (typeof ATTRIBUTION_GROUPS)[number];
export const ATTRIBUTION_BOUNDS = { window_days: [1, 90] } as const;
export const DEFAULT_WINDOW_DAYS = 30;

/** The label of the row that holds the conversions no click in the window brought. */
export const DIRECT_LABEL = "direct / none";
export const NO_CAMPAIGN_LABEL = "no campaign";

export const AttributionQuery = StrictQuery({
  period: t.Optional(PeriodSchema),
  domain_id: t.Optional(t.String({ format: "uuid" })),
  link_id: t.Optional(t.String({ format: "uuid" })),
  model: t.Optional(
    t.Union(
      ATTRIBUTION_MODELS.map((m) => t.Literal(m)),
      { description: "first (default): the earliest click in the window; last: the latest; linear: equal shares of every link clicked" },
    ),
  ),
  window_days: t.Optional(t.Integer({ description: "1 to 90 (default 30): how far before a conversion a click still counts" })),
  group_by: t.Optional(
    t.Union(
      ATTRIBUTION_GROUPS.map((g) => t.Literal(g)),
      { description: "link (default) or campaign (the link's campaign now)" },
    ),
  ),
});

const Money = t.Number({ minimum: 0, description: "In currency units (revenue_cents / 100)" });
const strict = { additionalProperties: false } as const;

export const AttributionRow = t.Object(
  {
    kind: t.Union([t.Literal("link"), t.Literal("campaign"), t.Literal("no_campaign"), t.Literal("direct")], {
      description: "direct: conversions with no click in the window; no_campaign: links without a campaign",
    }),
    id: t.Union([t.String(), t.Null()], { description: "The link or campaign id; null for direct and no_campaign" }),
    label: t.String({ description: "The link's short code (its id when unknown), the campaign's name, `no campaign` or `direct / none`" }),
    conversions: t.Number({ minimum: 0, description: "Credited conversions; linear credits are fractions, two decimals" }),
    revenue: Money,
    share: t.Number({ minimum: 0, maximum: 100, description: "Percent of total_conversions" }),
  },
  { $id: "AttributionRow", ...strict },
);

export const Attribution = t.Object(
  {
    model: t.Union(ATTRIBUTION_MODELS.map((m) => t.Literal(m))),
    window_days: t.Integer({ minimum: 1, maximum: 90 }),
    group_by: t.Union(ATTRIBUTION_GROUPS.map((g) => t.Literal(g))),
    total_conversions: t.Integer({ minimum: 0, description: "Equals the summary's total_conversions for the same query" }),
    total_revenue: t.Number({ minimum: 0, description: "Equals the summary's total_revenue for the same query" }),
    attributed_conversions: t.Integer({ minimum: 0, description: "Conversions with at least one click in the window" }),
    rows: t.Array(AttributionRow, { description: "Most credited conversions first; `direct / none` last" }),
  },
  { $id: "Attribution", ...strict },
);
export type AttributionReport = Static<typeof Attribution>;
