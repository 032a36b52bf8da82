// Wire schemas of the realtime reports (docs/insights.md "Realtime"): clicks of the account or a link
// (GET /analytics/realtime) and journey events of a link (GET /journey/links/{link_id}/realtime).
import { t, type Static } from "elysia";
import { StrictQuery } from "../http/strict-query";

/** The rolling window of the headline figures, and the minutes of the series. */
export const RECENT_MINUTES = 5;
export const SERIES_MINUTES = 30;

export const RealtimeClicksQuery = StrictQuery({
  link_id: t.Optional(t.String({ format: "uuid", description: "Only this link's clicks (404 when it is not the account's, or deleted)" })),
});
export type RealtimeClicksQuery = Static<typeof RealtimeClicksQuery>;
export const RealtimeLinkParams = t.Object({ link_id: t.String({ format: "uuid" }) });

const Count = t.Integer({ minimum: 0 });
const strict = { additionalProperties: false } as const;

export const RealtimeMinute = t.Object(
  {
    minute: t.String({ format: "date-time", description: "The minute's start (UTC)" }),
    visitors: t.Integer({ minimum: 0, description: "Distinct visitors within this minute" }),
    events: Count,
  },
  strict,
);

export const Realtime = t.Object(
  {
    source: t.Union([t.Literal("clicks"), t.Literal("journey_events")], {
      description: "What is counted: human clicks (visitors by visitor hash) or journey events (visitors by visitor_id)",
    }),
    as_of: t.String({ format: "date-time", description: "When the figures were taken" }),
    visitors: t.Integer({
      minimum: 0,
      description: "Distinct visitors over the last 5 minutes (each counted once, however many minutes they were active)",
    }),
    events: t.Integer({ minimum: 0, description: "Clicks or events over the last 5 minutes" }),
    minutes: t.Array(RealtimeMinute, { description: "The last 30 minutes, oldest first, the current (partial) minute last" }),
    unflushed: t.Integer({
      minimum: 0,
      description: "Of the 30 minutes' clicks or events, those counted from this instance's spool (accepted, not yet in ClickHouse)",
    }),
  },
  { $id: "Realtime", ...strict },
);
export type Realtime = Static<typeof Realtime>;
