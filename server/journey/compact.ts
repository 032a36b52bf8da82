// The compact form of a journey batch (docs/api.md "Compact form"), which t.js sends to keep the script
// small: one JSON array, [idempotency key or null, ...events], each event a positional array. It is
// expanded here into the object form, which then goes through the same validation as any batch; only
// what the object form cannot hold (the codes, the number timestamp, the array shapes, the key) is
// checked here. Errors name the object form's fields: body.events.<i>.<field>, i counting events.
import { AppError } from "../errors";
import { EVENT_TYPES, MAX_BATCH } from "./model";

type EventType = (typeof EVENT_TYPES)[number];

/** The fields every compact event has, in order; the type code comes first. */
const COMMON = ["event_type", "link_id", "visitor_id", "session_id", "page_url", "page_title", "device_type", "timestamp"] as const;

/** The fields after the common ones, by event type. */
export const COMPACT_TAILS: Record<EventType, readonly string[]> = {
  page_view: ["properties"],
  scroll_depth: ["scroll_percent"],
  time_on_page: ["time_on_page"],
  custom: ["event_name", "properties"],
  conversion: ["event_name", "properties", "revenue_cents", "currency", "conversion_name"],
};

/** Device codes: ordered by screen width, as the tracker computes them. */
export const COMPACT_DEVICES = ["mobile", "tablet", "desktop"] as const;

/** Event type codes are the positions in EVENT_TYPES: page_view 0 … conversion 4. */
export const COMPACT_EVENT_TYPES = EVENT_TYPES;

/** The latest timestamp that is still a 4-digit year (9999-12-31T23:59:59.999Z). */
const MAX_TIMESTAMP_MS = 253_402_300_799_999;

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

export interface ExpandedBatch {
  body: { events: Record<string, unknown>[] };
  /** The key of the header, else the body's; null when neither has one. */
  idempotencyKey: string | null;
}

/**
 * Expands a compact batch; 400 VALIDATION_ERROR naming the field when its shape is wrong, or when the
 * body's key differs from the X-Idempotency-Key header.
 */
export function expandCompactBatch(body: unknown[], headerKey: string | null): ExpandedBatch {
  const key = body[0];
  if (key !== null && (typeof key !== "string" || !IDEMPOTENCY_KEY.test(key))) {
    throw fieldError({ field: "body.0", message: "must be the idempotency key (1 to 255 printable ASCII characters) or null" });
  }
  if (key !== null && headerKey !== null && key !== headerKey) {
    throw fieldError({ field: "body.0", message: "must equal the X-Idempotency-Key header when both are given" });
  }
  const count = body.length - 1;
  if (count < 1 || count > MAX_BATCH) {
    throw fieldError({
      field: "body",
      message: `must hold 1 to ${MAX_BATCH} events after the idempotency key (got ${Math.max(count, 0)})`,
    });
  }
  const events = new Array<Record<string, unknown>>(count);
  for (let i = 0; i < count; i++) events[i] = expandEvent(body[i + 1], i);
  return { body: { events }, idempotencyKey: headerKey ?? key };
}

function expandEvent(a: unknown, i: number): Record<string, unknown> {
  const at = (field: string) => `body.events.${i}${field && "."}${field}`;
  if (!Array.isArray(a)) throw fieldError({ field: at(""), message: "must be an array (an event in the compact form)", index: i });
  const type = COMPACT_EVENT_TYPES[a[0]];
  if (!Number.isInteger(a[0]) || type === undefined) {
    throw fieldError({ field: at("event_type"), message: `must be a code from 0 to ${COMPACT_EVENT_TYPES.length - 1}`, index: i });
  }
  const tail = COMPACT_TAILS[type];
  if (a.length < COMMON.length || a.length > COMMON.length + tail.length) {
    const message = `must have ${COMMON.length} to ${COMMON.length + tail.length} values for a ${type} event (got ${a.length})`;
    throw fieldError({ field: at(""), message, index: i });
  }
  const e: Record<string, unknown> = { event_type: type };
  for (let j = 1; j < a.length; j++) {
    const v = a[j];
    if (v !== null) e[j < COMMON.length ? COMMON[j] : tail[j - COMMON.length]] = v;
  }
  if (e.device_type !== undefined) {
    const device = Number.isInteger(e.device_type) ? COMPACT_DEVICES[e.device_type as number] : undefined;
    if (device === undefined) throw fieldError({ field: at("device_type"), message: "must be a code from 0 to 2 or null", index: i });
    e.device_type = device;
  }
  if (e.timestamp !== undefined) {
    const ms = e.timestamp;
    if (!Number.isInteger(ms) || (ms as number) < 0 || (ms as number) > MAX_TIMESTAMP_MS) {
      throw fieldError({ field: at("timestamp"), message: "must be an integer of milliseconds since 1970-01-01 UTC, or null", index: i });
    }
    e.timestamp = new Date(ms as number).toISOString();
  }
  return e;
}

function fieldError(f: { field: string; message: string; index?: number }): AppError {
  return new AppError("VALIDATION_ERROR", `${f.field}: ${f.message}`, { fields: [f] });
}
