// Wire schemas of the insight reports (docs/insights.md): paths and retention of a link, each comparable
// (`compare=previous|year`, reports/compare-model.ts).
import { t, type Static } from "elysia";
import { StrictQuery } from "../http/strict-query";
import { PeriodSchema } from "../journey/model";
import { CompareParam, comparable } from "../reports/compare-model";

export const MAX_PATH_STEPS = 10;
export const PATHS_BOUNDS = { steps: [2, MAX_PATH_STEPS], limit: [1, 50] } as const;
export const RETENTION_BOUNDS = { weeks: [1, 26] } as const;

export type { Compare } from "../reports/compare";

export const InsightLinkParams = t.Object({ link_id: t.String({ format: "uuid" }) });
export const PathsQuery = StrictQuery({
  period: t.Optional(PeriodSchema),
  start: t.Optional(t.String({ minLength: 1, maxLength: 2048, description: "Paths forward from this event (as a funnel step)" })),
  end: t.Optional(t.String({ minLength: 1, maxLength: 2048, description: "Paths backward from this event (as a funnel step)" })),
  steps: t.Optional(t.Integer({ description: "2 to 10 (default 5), the start or end included" })),
  limit: t.Optional(t.Integer({ description: "Nodes shown per step, 1 to 50 (default 10); the rest are counted in `other_visitors`" })),
  compare: CompareParam,
});
export const RetentionQuery = StrictQuery({
  weeks: t.Optional(t.Integer({ description: "1 to 26 (default 8): cohorts of this week (Monday, UTC) and the weeks before" })),
  compare: CompareParam,
});

const Count = t.Integer({ minimum: 0 });
const strict = { additionalProperties: false } as const;
const Rate = t.Number({ minimum: 0, maximum: 100, description: "Percent of the cohort, two decimals" });

const PathNode = t.Object(
  {
    id: t.String({ description: "`<step>_<kind>:<name>`, unique in the report; edges name their ends by it" }),
    kind: t.String({
      description:
        "The event type: page_view (named by its URL), custom or conversion (by event_name), or the type of the start or end event",
    }),
    name: t.String(),
    visitors: Count,
    left: t.Integer({ minimum: 0, description: "Of these visitors, those with no further step" }),
  },
  strict,
);
export const Paths = t.Object(
  {
    direction: t.Union([t.Literal("forward"), t.Literal("backward")]),
    target: t.String({ description: "The start (forward) or end (backward) asked for" }),
    visitors: t.Integer({ minimum: 0, description: "Visitors who did the target event in the period: the funnel's first step for it" }),
    steps: t.Array(
      t.Object(
        {
          step: t.Integer({ minimum: 1 }),
          visitors: t.Integer({ minimum: 0, description: "Visitors with this many steps; the first step's equals `visitors`" }),
          left: t.Integer({
            minimum: 0,
            description: "Of them, those with no further step (forward: the session ended; backward: it began here)",
          }),
          other_visitors: t.Integer({ minimum: 0, description: "Visitors at nodes beyond `limit`" }),
          nodes: t.Array(PathNode),
        },
        strict,
      ),
    ),
    edges: t.Array(
      t.Object(
        {
          source: t.String(),
          target: t.String(),
          visitors: Count,
          median_seconds: t.Number({ minimum: 0, description: "Median time between the two steps (backward: from target to source)" }),
        },
        strict,
      ),
    ),
  },
  strict,
);
export type PathsReport = Static<typeof Paths>;

export const Retention = t.Object(
  {
    weeks: t.Integer({ minimum: 1 }),
    visitors: t.Integer({ minimum: 0, description: "New visitors: first event on the link in one of the cohort weeks" }),
    returning: t.Integer({ minimum: 0, description: "Of them, those with an event in a later week of the report" }),
    cohorts: t.Array(
      t.Object(
        {
          week: t.String({ format: "date", description: "Monday (UTC) of the week of the cohort's first visits" }),
          visitors: Count,
          returns: t.Array(t.Object({ week_offset: t.Integer({ minimum: 1 }), visitors: Count, rate: Rate }, strict), {
            description: "Each following week up to the report's end (the current week included, partial)",
          }),
        },
        strict,
      ),
    ),
  },
  strict,
);
export type RetentionReport = Static<typeof Retention>;

export const ComparablePaths = comparable(Paths, "Paths");
export const ComparableRetention = comparable(Retention, "Retention");
