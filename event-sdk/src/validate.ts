// The ingest API's rules for one event, checked when the app tracks it: the API refuses a whole batch
// for one bad event, so a bad event is refused here, with the field named, before it joins a batch.
import type { JourneyEvent } from "./types";

export const MAX_BATCH = 100;
export const MAX_PROPERTIES = 50;
export const MAX_PROPERTIES_BYTES = 4096;
export const MAX_PROPERTY_KEY = 64;
export const MAX_PROPERTY_VALUE = 1024;
export const EVENT_TYPES = ["page_view", "scroll_depth", "time_on_page", "custom", "conversion"] as const;
export const DEVICE_TYPES = ["mobile", "desktop", "tablet"] as const;

const DAY_MS = 86_400_000;
const MAX_AGE_MS = 1825 * DAY_MS;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/;
const HAS_OFFSET = /(Z|[+-]\d{2}:?\d{2})$/;

/** [min, max] length of each text field. */
const TEXT: Record<string, [number, number]> = {
  visitor_id: [1, 128],
  session_id: [0, 128],
  event_name: [0, 256],
  page_url: [1, 2048],
  page_title: [0, 512],
  conversion_name: [0, 256],
  city: [0, 128],
  region: [0, 128],
  browser: [0, 64],
  browser_version: [0, 64],
  os: [0, 64],
  os_version: [0, 64],
};
const OTHER_FIELDS = [
  "link_id",
  "event_type",
  "scroll_percent",
  "time_on_page",
  "timestamp",
  "revenue_cents",
  "currency",
  "country_code",
  "device_type",
  "properties",
];
const FIELDS = new Set([...Object.keys(TEXT), ...OTHER_FIELDS]);

/** A tracked event the API would refuse; `field` names it (`properties.plan`, `revenue_cents`…). */
export class InvalidEventError extends TypeError {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
    this.name = "InvalidEventError";
  }
}

/** Throws InvalidEventError for the first rule the event breaks. */
export function validateEvent(e: JourneyEvent, nowMs: number): void {
  const fail = (field: string, reason: string): never => {
    throw new InvalidEventError(field, reason);
  };
  const fields = e as unknown as Record<string, unknown>;
  for (const key in fields) {
    if (!FIELDS.has(key)) fail(key, "is not a journey event field");
    if (fields[key] === undefined) delete fields[key];
  }
  if (typeof e.link_id !== "string" || !UUID.test(e.link_id)) {
    fail("link_id", "must be the UUID of one of your links (set linkId, call identify(), or pass link_id)");
  }
  if (!EVENT_TYPES.includes(e.event_type)) fail("event_type", `must be one of ${EVENT_TYPES.join(", ")}`);
  for (const name in TEXT) {
    const v = fields[name];
    const [min, max] = TEXT[name];
    if (v === undefined && min === 0) continue;
    if (typeof v !== "string" || v.length < min || v.length > max) {
      fail(name, min > 0 ? `is required: a string of ${min} to ${max} characters` : `must be a string of at most ${max} characters`);
    }
    checkText(name, v as string, fail);
  }
  if (e.scroll_percent !== undefined && !inRange(e.scroll_percent, 0, 100)) fail("scroll_percent", "must be a number from 0 to 100");
  if (e.time_on_page !== undefined && !inRange(e.time_on_page, 0, 31_536_000)) {
    fail("time_on_page", "must be a non-negative number of seconds");
  }
  if (e.revenue_cents !== undefined && !(Number.isInteger(e.revenue_cents) && inRange(e.revenue_cents, 0, 1e15))) {
    fail("revenue_cents", "must be a non-negative integer (minor units)");
  }
  if (e.currency !== undefined && !(typeof e.currency === "string" && /^[A-Z]{3}$/.test(e.currency))) {
    fail("currency", "must be an ISO 4217 code of 3 upper-case letters");
  }
  if (e.country_code !== undefined && !(typeof e.country_code === "string" && /^[A-Za-z]{2}$/.test(e.country_code))) {
    fail("country_code", "must be a 2-letter ISO country code");
  }
  if (e.device_type !== undefined && !DEVICE_TYPES.includes(e.device_type))
    fail("device_type", `must be one of ${DEVICE_TYPES.join(", ")}`);
  if (e.timestamp !== undefined) {
    const ms =
      typeof e.timestamp === "string" && e.timestamp.length <= 40 && ISO_DATE_TIME.test(e.timestamp)
        ? Date.parse(HAS_OFFSET.test(e.timestamp) ? e.timestamp : `${e.timestamp}Z`)
        : NaN;
    if (Number.isNaN(ms)) fail("timestamp", "must be an ISO 8601 date-time");
    if (ms > nowMs + DAY_MS) fail("timestamp", "must not be more than 1 day in the future");
    if (ms < nowMs - MAX_AGE_MS) fail("timestamp", "must not be more than 1825 days in the past");
  }
  if (e.properties !== undefined) checkProperties(e.properties, fail);
}

function checkProperties(props: unknown, fail: (field: string, reason: string) => never): void {
  if (typeof props !== "object" || props === null || Array.isArray(props)) {
    fail("properties", `must be a flat object of at most ${MAX_PROPERTIES} keys`);
  }
  const entries = Object.keys(props as object);
  if (entries.length > MAX_PROPERTIES) fail("properties", `must have at most ${MAX_PROPERTIES} keys`);
  for (const key of entries) {
    const v = (props as Record<string, unknown>)[key];
    if (key.length === 0 || key.length > MAX_PROPERTY_KEY) fail("properties", `keys must be 1 to ${MAX_PROPERTY_KEY} characters`);
    checkText("properties", key, fail);
    if (typeof v === "string") {
      if (v.length > MAX_PROPERTY_VALUE) fail(`properties.${key}`, `must be at most ${MAX_PROPERTY_VALUE} characters`);
      checkText(`properties.${key}`, v, fail);
    } else if (!(v === null || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v)))) {
      fail(`properties.${key}`, "must be a string, a finite number, a boolean or null");
    }
  }
  if (utf8Length(JSON.stringify(props)) > MAX_PROPERTIES_BYTES)
    fail("properties", `must serialize to at most ${MAX_PROPERTIES_BYTES} bytes`);
}

/**
 * The API refuses text it could not store: a NUL character, or half of a UTF-16 surrogate pair
 * (checked by hand: String.prototype.isWellFormed is not on every React Native engine).
 */
function checkText(field: string, s: string, fail: (field: string, reason: string) => never): void {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0) fail(field, "must not contain NUL (U+0000) characters");
    if (c >= 0xd800 && c <= 0xdfff) {
      const paired = c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
      if (!paired) fail(field, "must be valid Unicode (it contains an unpaired surrogate)");
      i++;
    }
  }
}

const inRange = (v: unknown, min: number, max: number) => typeof v === "number" && Number.isFinite(v) && v >= min && v <= max;

/** UTF-8 byte length without TextEncoder (not on every React Native engine). */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}
