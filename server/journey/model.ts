// Wire schemas of the journey API: the ingest batch (docs/api.md "Journey ingest") and
// the query parameters of the journey reports.
import { t, type Static } from "elysia";
import { StrictQuery } from "../http/strict-query";
import { CompareParam, comparable } from "../reports/compare-model";
import type { TSchema } from "@sinclair/typebox";
import type { JourneyEvent as SdkJourneyEvent } from "../../event-sdk/src/types";
import { ISO_DATE_TIME_PATTERN } from "../iso-time";
import { PERIODS, type Period } from "../reports/period";

export const EVENT_TYPES = ["page_view", "scroll_depth", "time_on_page", "custom", "conversion"] as const;
export const DEVICE_TYPES = ["mobile", "desktop", "tablet"] as const;
export const MAX_BATCH = 100;
export const MAX_PROPERTIES = 50;
export const MAX_PROPERTIES_BYTES = 4096;
export const MAX_PROPERTY_KEY = 64;
export const MAX_PROPERTY_VALUE = 1024;
/** How long a repeated X-Idempotency-Key is answered `already_processed`. */
export const IDEMPOTENCY_WINDOW_MS = 300_000;

const UUID_PATTERN = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";

const str = (maxLength: number, minLength = 0) => t.String({ minLength, maxLength });
const PropertyValue = t.Union([t.String({ maxLength: MAX_PROPERTY_VALUE }), t.Number(), t.Boolean(), t.Null()]);

export const JourneyEventSchema = t.Object(
  {
    link_id: t.String({ pattern: UUID_PATTERN }),
    visitor_id: str(128, 1),
    session_id: t.Optional(str(128)),
    event_type: t.Union(EVENT_TYPES.map((e) => t.Literal(e))),
    event_name: t.Optional(str(256)),
    page_url: str(2048, 1),
    page_title: t.Optional(str(512)),
    scroll_percent: t.Optional(t.Number({ minimum: 0, maximum: 100 })),
    time_on_page: t.Optional(t.Number({ minimum: 0, maximum: 31_536_000 })),
    timestamp: t.Optional(t.String({ pattern: ISO_DATE_TIME_PATTERN, maxLength: 40 })),
    conversion_name: t.Optional(str(256)),
    revenue_cents: t.Optional(t.Integer({ minimum: 0, maximum: 1e15 })),
    currency: t.Optional(t.String({ pattern: "^[A-Z]{3}$" })),
    country_code: t.Optional(t.String({ pattern: "^[A-Za-z]{2}$" })),
    city: t.Optional(str(128)),
    region: t.Optional(str(128)),
    device_type: t.Optional(t.Union(DEVICE_TYPES.map((d) => t.Literal(d)))),
    browser: t.Optional(str(64)),
    browser_version: t.Optional(str(64)),
    os: t.Optional(str(64)),
    os_version: t.Optional(str(64)),
    properties: t.Optional(t.Record(t.String(), PropertyValue, { maxProperties: MAX_PROPERTIES })),
  },
  { additionalProperties: false },
);

export const JourneyBatchSchema = t.Object(
  {
    events: t.Array(JourneyEventSchema, { minItems: 1, maxItems: MAX_BATCH }),
  },
  { additionalProperties: false },
);

export type JourneyEvent = Static<typeof JourneyEventSchema>;

// The event SDK's wire type (which the tracker's is too) and this schema must describe the same object.
type Same<A, B> = [A, keyof A] extends [B, keyof B] ? ([B, keyof B] extends [A, keyof A] ? true : false) : false;
true satisfies Same<JourneyEvent, SdkJourneyEvent>;

/** Friendlier messages than the schema engine's, by field name. */
export const FIELD_MESSAGES: Record<string, string> = {
  link_id: "must be a UUID of one of your links",
  visitor_id: "is required: a string of 1 to 128 characters",
  session_id: "must be a string of at most 128 characters",
  event_type: `must be one of ${EVENT_TYPES.join(", ")}`,
  page_url: "is required: a string of 1 to 2048 characters",
  scroll_percent: "must be a number from 0 to 100",
  time_on_page: "must be a non-negative number of seconds",
  timestamp: "must be an ISO 8601 date-time",
  revenue_cents: "must be a non-negative integer (minor units)",
  currency: "must be an ISO 4217 code of 3 upper-case letters",
  country_code: "must be a 2-letter ISO country code",
  device_type: `must be one of ${DEVICE_TYPES.join(", ")}`,
  properties: `must be a flat object of at most ${MAX_PROPERTIES} keys with string, number, boolean or null values`,
};

export { PERIODS, type Period } from "../reports/period";
export const PeriodSchema = t.Union(Object.keys(PERIODS).map((p) => t.Literal(p as Period)));

export const LinkParams = t.Object({ link_id: t.String({ format: "uuid" }) });
export const SummaryQuery = StrictQuery({ period: t.Optional(PeriodSchema), compare: CompareParam });
/** Checked by checkQueryBounds (server/http/query-bounds.ts), which names the field. */
export const SESSIONS_BOUNDS = { page: [1, 1_000_000], limit: [1, 100] } as const;
export const EVENTS_BOUNDS = { page: [1, 1_000_000], limit: [1, 200] } as const;
export const SessionsQuery = StrictQuery({
  period: t.Optional(PeriodSchema),
  page: t.Optional(t.Integer({ description: "1 to 1,000,000 (default 1)" })),
  limit: t.Optional(t.Integer({ description: "1 to 100 (default 20)" })),
  visitor_id: t.Optional(str(128, 1)),
});
export const EventsQuery = StrictQuery({
  period: t.Optional(PeriodSchema),
  page: t.Optional(t.Integer({ description: "1 to 1,000,000 (default 1)" })),
  limit: t.Optional(t.Integer({ description: "1 to 200 (default 50)" })),
  event_type: t.Optional(t.Union(EVENT_TYPES.map((e) => t.Literal(e)))),
  session_id: t.Optional(t.String({ minLength: 1, maxLength: 128 })),
});
export const FunnelQuery = StrictQuery({
  period: t.Optional(PeriodSchema),
  steps: t.String({ minLength: 1, maxLength: 4096 }),
  compare: CompareParam,
});
export const MAX_FUNNEL_STEPS = 20;

// Responses: the ingest answer, the summary, session and event items, the funnel, the usage object.
// The tests check every answer against these.
const Count = t.Integer({ minimum: 0 });
/** docs/accuracy.md: what a journey visitor is. */
const visitors = (what = "") =>
  t.Integer({
    minimum: 0,
    description: `${what}Distinct visitor_ids, each counted once in the period: a visitor_id is the site's own stable id.`,
  });
const Time = t.String({ format: "date-time" });
const Nullable = <T extends TSchema>(s: T) => t.Union([s, t.Null()]);
const strict = { additionalProperties: false } as const;

export const JourneyUsage = t.Object(
  { events_this_month: Count, limit: Count, status: t.Union([t.Literal("soft_limit"), t.Literal("hard_limit_approaching")]) },
  { $id: "JourneyUsage", ...strict },
);
export const IngestAccepted = t.Object(
  {
    message: t.String(),
    count: t.Integer({ minimum: 0, description: "Events queued (0 for a repeated X-Idempotency-Key)" }),
    already_processed: t.Optional(t.Literal(true, { description: "The X-Idempotency-Key was seen in the last 5 minutes" })),
    usage: t.Optional(JourneyUsage),
  },
  { $id: "IngestAccepted", ...strict },
);
/** A breakdown of the imported days by one of the export's files: the value and its visitors, most first. */
const importedValues = (what: string) =>
  t.Array(
    t.Object(
      {
        value: t.String({ description: "The value as the source wrote it (empty when it had none)" }),
        visitors: t.Integer({ minimum: 0, description: "Visitors summed over the days shown" }),
      },
      strict,
    ),
    { description: `${what} by visitors, at most 10; empty when the export had no such file` },
  );
const ImportedJourneyFigures = t.Object(
  {
    source: t.String({ description: "The product the figures come from (plausible)" }),
    from: t.String({ format: "date", description: "The first imported day shown (the source's time zone)" }),
    to: t.String({ format: "date", description: "The last imported day shown" }),
    own_data_from: t.Union([t.String({ format: "date" }), t.Null()], {
      description: "The day (UTC) of the link's first own event; imported days from then on are not shown",
    }),
    visitors: t.Integer({ minimum: 0, description: "Visitors summed over the days (the source counts them per day)" }),
    visits: Count,
    pageviews: Count,
    bounce_rate: t.Number({ minimum: 0, description: "Bounces per 100 visits" }),
    avg_visit_duration_seconds: t.Number({ minimum: 0 }),
    top_pages: t.Array(t.Object({ url: t.String(), count: Count }, strict), { description: "By pageviews, at most 10" }),
    top_events: t.Array(t.Object({ name: t.String(), count: Count }, strict), { description: "Custom events (goals), at most 10" }),
    sources: importedValues("Sources (Plausible's `source`: a referrer's name, `Direct / None`…)"),
    entry_pages: importedValues("Entry pages"),
    exit_pages: importedValues("Exit pages"),
    countries: importedValues("Countries (ISO 3166-1 alpha-2 codes, from the locations file)"),
    devices: importedValues("Device types (Desktop, Mobile, Tablet…, the source's names)"),
    browsers: importedValues("Browsers"),
    operating_systems: importedValues("Operating systems"),
    daily: t.Array(t.Object({ date: t.String({ format: "date" }), visitors: Count, visits: Count, pageviews: Count }, strict), {
      description: "One entry per imported day shown, oldest first",
    }),
  },
  { $id: "ImportedJourneyFigures", ...strict },
);

export const JourneySummary = t.Object(
  {
    total_visitors: visitors(),
    total_sessions: Count,
    total_events: Count,
    avg_session_duration_seconds: t.Number({ minimum: 0 }),
    top_pages: t.Array(t.Object({ url: t.String(), count: Count }, strict)),
    top_events: t.Array(t.Object({ name: t.String(), count: Count }, strict)),
    imported: t.Union([ImportedJourneyFigures, t.Null()], {
      description:
        "Another product's daily figures imported for this link (POST /imports, a Plausible export), for the days before its first own event, whatever the period; null when there are none. Never part of the totals above",
    }),
  },
  { $id: "JourneySummary", ...strict },
);
export const JourneySession = t.Object(
  {
    session_id: t.String(),
    visitor_id: t.String(),
    started_at: Time,
    ended_at: Time,
    duration_seconds: t.Number({ minimum: 0 }),
    event_count: Count,
    page_views: Count,
    entry_page: t.String(),
    exit_page: t.String(),
    converted: t.Boolean(),
    device_type: Nullable(t.String()),
    country_code: Nullable(t.String()),
  },
  { $id: "JourneySession", ...strict },
);
const text = (max: number) => Nullable(t.String({ maxLength: max }));
export const JourneyEventItem = t.Object(
  {
    id: t.String({ format: "uuid" }),
    link_id: t.String({ format: "uuid" }),
    visitor_id: t.String(),
    session_id: text(128),
    event_type: t.Union(EVENT_TYPES.map((e) => t.Literal(e))),
    event_name: text(256),
    page_url: t.String(),
    page_title: text(512),
    scroll_percent: Nullable(t.Number()),
    time_on_page: Nullable(t.Number()),
    timestamp: Time,
    conversion_name: text(256),
    revenue_cents: Nullable(t.Integer({ minimum: 0 })),
    currency: text(3),
    country_code: text(2),
    city: text(128),
    region: text(128),
    device_type: text(16),
    browser: text(64),
    browser_version: text(64),
    os: text(64),
    os_version: text(64),
    properties: t.Record(t.String(), PropertyValue),
  },
  { $id: "JourneyEventItem", ...strict },
);
export const Funnel = t.Object(
  {
    steps: t.Array(
      t.Object(
        {
          step_name: t.String(),
          visitors: visitors("Visitors who reached this step. "),
          conversion_rate: t.Number({ minimum: 0, description: "Percent of the previous step's visitors (100 for the first step)" }),
        },
        strict,
      ),
    ),
    total_visitors: visitors("Every visitor of the link in the period. "),
  },
  { $id: "Funnel", ...strict },
);

export const ComparableJourneySummary = comparable(JourneySummary, "ComparableJourneySummary", undefined, ["imported"]);
export const ComparableFunnel = comparable(Funnel, "ComparableFunnel", "total_visitors, and each step's visitors as step_1, step_2, …");
