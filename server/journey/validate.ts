// Validation of an ingest batch: a compiled TypeBox check on the hot path; the slow path only runs
// for a bad batch, to name the event index and field of the first problems.
import { t } from "elysia";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { AppError } from "../errors";
import { isoTimeMs } from "../iso-time";
import { parseJsonBody } from "../http/json-body";
import { expandCompactBatch } from "./compact";
import {
  FIELD_MESSAGES,
  JourneyBatchSchema,
  JourneyEventSchema,
  MAX_BATCH,
  MAX_PROPERTIES,
  MAX_PROPERTIES_BYTES,
  MAX_PROPERTY_KEY,
  MAX_PROPERTY_VALUE,
  type JourneyEvent,
} from "./model";

const checkBatch = TypeCompiler.Compile(JourneyBatchSchema);

// The same check split in two, about twice as fast: TypeBox's code for `additionalProperties: false`
// and for a Record allocates per key, so unknown fields and `properties` are checked by hand. It accepts
// a subset of what `checkBatch` accepts; whatever it refuses gets `checkBatch`'s verdict.
const checkFields = TypeCompiler.Compile(
  t.Object(
    {
      events: t.Array(t.Object({ ...JourneyEventSchema.properties, properties: t.Optional(t.Unknown()) }), {
        minItems: 1,
        maxItems: MAX_BATCH,
      }),
    },
    { additionalProperties: false },
  ),
);
const EVENT_FIELDS = new Set(Object.keys(JourneyEventSchema.properties));

function hasOnlyKnownFieldsAndScalarProperties(e: Record<string, unknown>): boolean {
  for (const key in e) if (!EVENT_FIELDS.has(key)) return false;
  const props = e.properties;
  if (props === undefined) return true;
  if (typeof props !== "object" || props === null || Array.isArray(props)) return false;
  let count = 0;
  for (const key in props) {
    const v = (props as Record<string, unknown>)[key];
    if (++count > MAX_PROPERTIES) return false;
    if (
      !(
        v === null ||
        typeof v === "boolean" ||
        (typeof v === "number" && Number.isFinite(v)) ||
        (typeof v === "string" && v.length <= MAX_PROPERTY_VALUE)
      )
    ) {
      return false;
    }
  }
  return true;
}

/** Accepts a subset of the batches `JourneyBatchSchema` accepts: nearly all valid ones, faster. */
export const isJourneyBatchFast = (body: unknown): body is { events: JourneyEvent[] } =>
  checkFields.Check(body) && body.events.every(hasOnlyKnownFieldsAndScalarProperties);

const isJourneyBatch = (body: unknown): body is { events: JourneyEvent[] } => isJourneyBatchFast(body) || checkBatch.Check(body);

const DAY_MS = 86_400_000;
/** Older events would fall outside the table's five-year TTL at once. */
const MAX_AGE_MS = 1825 * DAY_MS;

export interface FieldError {
  field: string;
  message: string;
  index?: number;
}

/**
 * A batch in either form (a JSON array is the compact one, expanded first) and its idempotency key:
 * the X-Idempotency-Key header's, else the compact body's. 400 VALIDATION_ERROR naming the field.
 */
export function validateIngestBody(
  body: unknown,
  headerKey: string | null,
  nowMs: number,
): { events: JourneyEvent[]; idempotencyKey: string | null } {
  // A text/plain body (what a browser can send without a CORS preflight) is parsed as JSON bodies are.
  if (typeof body === "string") body = parseJsonBody(body);
  if (!Array.isArray(body)) return { events: validateBatch(body, nowMs), idempotencyKey: headerKey };
  const compact = expandCompactBatch(body, headerKey);
  return { events: validateBatch(compact.body, nowMs), idempotencyKey: compact.idempotencyKey };
}

/** Returns the batch's events, or throws 400 VALIDATION_ERROR naming `body.events.<i>.<field>`. */
export function validateBatch(body: unknown, nowMs: number): JourneyEvent[] {
  if (typeof body === "string") body = parseJsonBody(body);
  if (!isJourneyBatch(body)) throw batchError(schemaErrors(body));
  const events = body.events;
  for (let i = 0; i < events.length; i++) {
    const problem = checkEventRules(events[i], nowMs);
    if (problem) throw batchError([{ field: `body.events.${i}.${problem.field}`, message: problem.message, index: i }]);
  }
  return events;
}

/** Rules a schema cannot express: timestamp bounds and the size of `properties`. */
function checkEventRules(e: JourneyEvent, nowMs: number): { field: string; message: string } | null {
  if (e.timestamp !== undefined) {
    const ms = isoTimeMs(e.timestamp);
    if (Number.isNaN(ms)) return { field: "timestamp", message: FIELD_MESSAGES.timestamp };
    if (ms > nowMs + DAY_MS) return { field: "timestamp", message: "must not be more than 1 day in the future" };
    if (ms < nowMs - MAX_AGE_MS) return { field: "timestamp", message: "must not be more than 1825 days in the past" };
  }
  if (e.properties !== undefined) {
    // An upper bound of the serialized size (escapes at most 6 characters each) saves a stringify.
    let bound = 2;
    for (const key in e.properties) {
      if (key.length === 0 || key.length > MAX_PROPERTY_KEY) {
        return { field: "properties", message: `keys must be 1 to ${MAX_PROPERTY_KEY} characters` };
      }
      const v = e.properties[key];
      bound += 6 * key.length + 4 + (typeof v === "string" ? 6 * v.length + 2 : 24);
    }
    if (bound > MAX_PROPERTIES_BYTES && Buffer.byteLength(JSON.stringify(e.properties)) > MAX_PROPERTIES_BYTES) {
      return { field: "properties", message: `must serialize to at most ${MAX_PROPERTIES_BYTES} bytes` };
    }
  }
  return null;
}

function schemaErrors(body: unknown): FieldError[] {
  const events = (body as { events?: unknown })?.events;
  if (Array.isArray(events) && events.length > MAX_BATCH) {
    return [{ field: "body.events", message: `at most ${MAX_BATCH} events per batch (got ${events.length})` }];
  }
  const seen = new Set<string>();
  const fields: FieldError[] = [];
  for (const err of checkBatch.Errors(body)) {
    const parts = err.path.split("/").filter(Boolean);
    // A union's inner alternatives report deeper paths; name the field itself (events.i.field).
    const top = parts[0] === "events" && parts.length > 3 ? parts.slice(0, 3) : parts;
    const field = ["body", ...top].join(".");
    if (seen.has(field)) continue;
    seen.add(field);
    const index = top[0] === "events" && top.length > 1 ? Number(top[1]) : undefined;
    const name = top[2];
    const message = describe(err.message, name, body, top);
    fields.push(index === undefined ? { field, message } : { field, message, index });
    if (fields.length >= 20) break;
  }
  if (fields.length === 0) fields.push({ field: "body", message: "must be an object with an events array" });
  return fields;
}

function describe(engineMessage: string, name: string | undefined, body: unknown, path: string[]): string {
  if (path.length === 1 && path[0] === "events") return `must be an array of 1 to ${MAX_BATCH} events`;
  if (path.length === 3 && name) {
    const event = (body as { events: Record<string, unknown>[] }).events[Number(path[1])];
    if (!(name in JOURNEY_FIELDS)) return "is not a journey event field";
    if (event && typeof event === "object" && !(name in event)) return "is required";
  }
  if (name && FIELD_MESSAGES[name]) return FIELD_MESSAGES[name];
  return engineMessage;
}

const JOURNEY_FIELDS = JourneyBatchSchema.properties.events.items.properties;

function batchError(fields: FieldError[]): AppError {
  const first = fields[0];
  return new AppError("VALIDATION_ERROR", `${first.field}: ${first.message}`, { fields });
}
