// The response envelope as schemas (server/http/envelope.ts builds it): success bodies, the object
// error form per status and code, the string form of 429 RATE_LIMIT_EXCEEDED, and the headers.
import { t } from "elysia";
import type { TSchema } from "@sinclair/typebox";
import type { ErrorCode } from "../errors";

const RequestId = t.String({ description: "The request's id, also in the X-Request-Id header" });
const Timestamp = t.String({ format: "date-time" });

export const Meta = t.Object({ request_id: RequestId, timestamp: Timestamp }, { $id: "Meta", additionalProperties: false });
export const PageMeta = t.Object(
  {
    request_id: RequestId,
    timestamp: Timestamp,
    page: t.Integer({ minimum: 1 }),
    per_page: t.Integer({ minimum: 1 }),
    total: t.Integer({ minimum: 0, description: "Items in the whole list" }),
    total_pages: t.Integer({ minimum: 0 }),
  },
  { $id: "PageMeta", additionalProperties: false },
);

export function successEnvelope(data: TSchema, opts: { paginated?: boolean; success?: boolean } = {}) {
  return t.Object(
    { success: t.Literal(opts.success ?? true), data, meta: opts.paginated ? PageMeta : Meta },
    { additionalProperties: false },
  );
}

const FieldError = t.Object(
  {
    field: t.String({ description: "Where: `body.url`, `query.per_page`, `path.id`, `body.events.3.scroll_percent`…" }),
    message: t.String(),
    index: t.Optional(t.Integer({ minimum: 0, description: "Journey ingest: the position of the failing event" })),
  },
  { $id: "FieldError" },
);

/** Details each code carries; codes not listed may carry an object of facts (e.g. `field`) or none. */
const DETAILS: Partial<Record<ErrorCode, TSchema>> = {
  VALIDATION_ERROR: t.Object({ fields: t.Optional(t.Array(FieldError)) }, { $id: "ValidationDetails" }),
  INSUFFICIENT_PERMISSIONS: t.Object({ required: t.String({ description: "The permission the route needs" }) }),
  TIER_UPGRADE_REQUIRED: t.Object({ required_tier: t.String(), field: t.Optional(t.String()) }),
  QUOTA_EXCEEDED: t.Object({ limit: t.Integer(), tier: t.String() }),
  JOURNEY_LIMIT_EXCEEDED: t.Object(
    {
      events_this_month: t.Integer({ minimum: 0 }),
      limit: t.Integer({ minimum: 0 }),
      status: t.Literal("blocked"),
    },
    { $id: "JourneyLimitDetails" },
  ),
};
const ANY_DETAILS = t.Record(t.String(), t.Unknown());

const pascal = (code: string) =>
  code
    .replace(/_ERROR$/, "")
    .toLowerCase()
    .replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase());

/** `{code, message, details?}` of one code; named (a component) unless its details are the route's own. */
export function errorObject(code: ErrorCode, details?: TSchema) {
  return t.Object(
    { code: t.Literal(code), message: t.String(), details: t.Optional(details ?? DETAILS[code] ?? ANY_DETAILS) },
    details ? { additionalProperties: false } : { $id: `${pascal(code)}Error`, additionalProperties: false },
  );
}

/** The object error form for one status and the codes a route answers with there. */
export function errorEnvelope(status: number, errors: TSchema[]) {
  return t.Object(
    {
      success: t.Literal(false),
      error: errors.length === 1 ? errors[0] : t.Union(errors),
      meta: t.Object({ request_id: RequestId, timestamp: Timestamp, status: t.Literal(status) }, { additionalProperties: false }),
    },
    { additionalProperties: false },
  );
}

/** 429 of the hourly rate limit: the string form (`error` is the code itself, `message` names the wait). */
export const RateLimitError = t.Object(
  {
    success: t.Literal(false),
    error: t.Literal("RATE_LIMIT_EXCEEDED"),
    message: t.String({ description: "Names the wait, e.g. `Try again in 1260 seconds.`" }),
  },
  { $id: "RateLimitError", additionalProperties: false },
);

const integer = (description: string) => ({ description, schema: { type: "integer", minimum: 0 } });

/** components.headers; `required` is decided per response. */
export const HEADERS = {
  "X-Request-Id": {
    description: "The request's id (an incoming X-Request-Id of 8–64 safe characters is kept)",
    schema: { type: "string" },
  },
  "X-RateLimit-Limit": integer("Requests per hour of the key's tier"),
  "X-RateLimit-Remaining": integer("Requests left in the sliding one-hour window"),
  "X-RateLimit-Reset": integer("Unix time (seconds) when the oldest counted request leaves the window"),
  "Retry-After": integer("Seconds to wait before sending again"),
  "X-Journey-Warning": {
    description: "Between 100% and 150% of the monthly journey event limit",
    schema: { type: "string", enum: ["soft_limit", "hard_limit_approaching"] },
  },
  "X-Export-Range": {
    description: "The UTC days the export reads, as start/end (after the tier's retention)",
    schema: { type: "string", pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}/[0-9]{4}-[0-9]{2}-[0-9]{2}$" },
  },
  "X-Export-Next-Cursor": {
    description: "Only when `limit` stopped the answer before the end: the `cursor` that continues after its last row",
    schema: { type: "string" },
  },
  "X-Journey-Usage": {
    description: "Journey events this month and the monthly limit, as used/limit",
    schema: { type: "string", pattern: "^[0-9]+/[0-9]+$" },
  },
} as const;
export type DocumentedHeader = keyof typeof HEADERS;

/** `data` of deletions and other answers that only confirm. */
export const MessageResult = t.Object({ message: t.String() }, { $id: "MessageResult", additionalProperties: false });
