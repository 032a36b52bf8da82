// POST /journey/events as a pipeline of small steps, each of which may refuse the batch:
// backpressure → validate → link ownership → idempotency → monthly quota → durable spool → 202.
// Nothing on this path touches ClickHouse, and Postgres only on a link-cache miss or a conversion.
import { AppError } from "../errors";
import { emitEvents } from "../webhooks/outbox";
import type { JourneyRecord, JourneyRow } from "../ingest/journey/record";
import type { Spool } from "../ingest/spool";
import type { Kv } from "../storage/kv";
import { ALREADY_PROCESSED, type IdempotencyGuard, type Ticket } from "./idempotency/guard";
import type { DbOrTx } from "../storage/postgres/client";
import type { Metrics } from "../http/metrics";
import type { Logger } from "../http/logger";
import type { LinkOwnership } from "../links/read";
import type { IngestAdmission, Refusal } from "./admission";
import type { UsageMeter, Reservation } from "./usage";
import { validateIngestBody } from "./validate";
import { toJourneyRow } from "../ingest/journey/rows";
import { chTime } from "../storage/clickhouse/format";
import type { JourneyEvent } from "./model";

export interface IngestDeps {
  db: DbOrTx;
  kv: Kv;
  spool: Spool<JourneyRecord>;
  idempotency: IdempotencyGuard;
  admission: IngestAdmission;
  links: LinkOwnership;
  usage: UsageMeter;
  metrics: Metrics;
  logger: Logger;
}

export interface IngestRequest {
  accountId: string;
  monthlyLimit: number;
  idempotencyKey: string | null;
  body: unknown;
  nowMs: number;
}
export interface IngestResult {
  data: Record<string, unknown>;
  headers: Record<string, string>;
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
const OVERLOAD_RETRY_SECONDS = "5";

// 503 for a batch the spool cannot take now; nothing of it is accepted. Built once: an Error captures
// its stack when constructed.
const OVERLOADED: Record<Refusal["reason"], AppError> = {
  spool_full: new AppError("SERVICE_UNAVAILABLE", "Ingest is over capacity; retry shortly", undefined, {
    "retry-after": OVERLOAD_RETRY_SECONDS,
  }),
  flush_lag: new AppError("SERVICE_UNAVAILABLE", "Ingest is over capacity; retry shortly", undefined, { "retry-after": "1" }),
};
/**
 * A refusal is answered this late: a client that ignores Retry-After and sends again at once would
 * otherwise spin the server on refusals and take the CPU the flusher needs to catch up.
 */
const REFUSAL_DELAY_MS = 100;

export async function ingestJourneyBatch(deps: IngestDeps, req: IngestRequest): Promise<IngestResult> {
  await admit(deps, req);
  const { events, idempotencyKey } = await validate(deps, req);
  const ticket = await deps.idempotency.begin(req.accountId, idempotencyKey, req.nowMs);
  if (ticket === ALREADY_PROCESSED) return { data: { message: "Batch already processed", count: 0, already_processed: true }, headers: {} };
  const reservation = await reserveQuota(deps, req, events.length, ticket);
  const rows = toRows(req, events);
  await store(deps, rows, ticket, reservation);
  deps.metrics.eventsAccepted.inc({ stream: "journey" }, rows.length);
  await emitConversions(deps, req, events, rows);
  return respond(rows.length, reservation);
}

/** 503 while the spool cannot take the batch now; nothing of it is accepted. */
async function admit(deps: IngestDeps, req: IngestRequest): Promise<void> {
  const refusal = deps.admission.refusal(req.nowMs);
  if (!refusal) return;
  reject(deps, "overload", req.body);
  await Bun.sleep(REFUSAL_DELAY_MS);
  throw OVERLOADED[refusal.reason];
}

/**
 * The batch's events (either form: see compact.ts) and its idempotency key: valid, the key well-formed,
 * the events on links of the account.
 */
async function validate(deps: IngestDeps, req: IngestRequest): Promise<{ events: JourneyEvent[]; idempotencyKey: string | null }> {
  try {
    const batch = validateIngestBody(req.body, req.idempotencyKey, req.nowMs);
    checkIdempotencyKey(req.idempotencyKey);
    await checkLinkOwnership(deps.links, req.accountId, batch.events);
    return batch;
  } catch (err) {
    reject(deps, "validation", req.body);
    throw err;
  }
}

/** Into the durable spool with the ticket; on failure the quota and the key are given back (503). */
async function store(deps: IngestDeps, rows: JourneyRow[], ticket: Ticket, reservation: Reservation): Promise<void> {
  try {
    await deps.spool.append(rows, ticket);
  } catch (err) {
    await deps.usage.release(reservation).catch(() => {});
    await ticket.abort();
    deps.logger.error({ msg: "journey spool append failed", error: String(err) });
    throw new AppError("SERVICE_UNAVAILABLE", "Events could not be stored; retry shortly", undefined, {
      "retry-after": OVERLOAD_RETRY_SECONDS,
    });
  }
  await ticket.commit();
}

function checkIdempotencyKey(key: string | null): void {
  if (key !== null && !IDEMPOTENCY_KEY.test(key)) {
    throw new AppError("VALIDATION_ERROR", "X-Idempotency-Key: must be 1 to 255 printable ASCII characters", {
      fields: [{ field: "header.x-idempotency-key", message: "must be 1 to 255 printable ASCII characters" }],
    });
  }
}

async function checkLinkOwnership(links: LinkOwnership, accountId: string, events: JourneyEvent[]): Promise<void> {
  const ids = new Set<string>();
  for (const e of events) {
    e.link_id = e.link_id.toLowerCase();
    ids.add(e.link_id);
  }
  const unknown = await links.findUnknown(accountId, ids);
  if (unknown.size === 0) return;
  const index = events.findIndex((e) => unknown.has(e.link_id));
  const field = `body.events.${index}.link_id`;
  const message = "is not a link of this account";
  throw new AppError("VALIDATION_ERROR", `${field}: ${message}`, { fields: [{ field, message, index }] });
}

async function reserveQuota(deps: IngestDeps, req: IngestRequest, count: number, ticket: Ticket): Promise<Reservation> {
  const r = await deps.usage.reserve(req.accountId, req.monthlyLimit, count, req.nowMs);
  if (r.ok) return r;
  await ticket.abort();
  deps.metrics.eventsRejected.inc({ stream: "journey", reason: "monthly_limit" }, count);
  throw new AppError(
    "JOURNEY_LIMIT_EXCEEDED",
    `Monthly journey event limit exceeded (${r.used} of ${r.limit}); events are accepted up to 150% of the limit`,
    { events_this_month: r.used, limit: r.limit, status: "blocked" },
    { "retry-after": String(r.retryAfterSeconds) },
  );
}

/** The `journey_events` rows the spool stores and the flusher inserts as they are. */
function toRows(req: IngestRequest, events: JourneyEvent[]): JourneyRow[] {
  const received = chTime(req.nowMs);
  const rows = new Array<JourneyRow>(events.length);
  for (let i = 0; i < events.length; i++) rows[i] = toJourneyRow(crypto.randomUUID(), req.nowMs, received, req.accountId, events[i]);
  return rows;
}

/** One `conversion` bus event per conversion event, after the batch is durable; one statement per batch. */
async function emitConversions(deps: IngestDeps, req: IngestRequest, events: JourneyEvent[], rows: JourneyRow[]): Promise<void> {
  const conversions: Record<string, unknown>[] = [];
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    if (e.event_type === "conversion")
      conversions.push({ id: rows[i][0] as string, ...e, timestamp: e.timestamp ?? new Date(req.nowMs).toISOString() });
  }
  try {
    await emitEvents(deps.db, req.accountId, "conversion", conversions);
  } catch (err) {
    deps.logger.error({ msg: "conversion events not emitted", event_ids: conversions.map((c) => c.id), error: String(err) });
  }
}

function respond(count: number, r: Reservation): IngestResult {
  const data: Record<string, unknown> = { message: `${count} event(s) queued`, count };
  if (r.status === "ok") return { data, headers: {} };
  data.usage = { events_this_month: r.used, limit: r.limit, status: r.status };
  return { data, headers: { "x-journey-warning": r.status, "x-journey-usage": `${r.used}/${r.limit}` } };
}

function reject(deps: IngestDeps, reason: string, what: unknown): void {
  deps.metrics.eventsRejected.inc({ stream: "journey", reason }, eventCount(what));
}

/** Events in a body as sent (1 when it cannot tell); a JSON array is the compact form, [key, ...events]. */
function eventCount(body: unknown): number {
  if (Array.isArray(body)) return Math.max(1, body.length - 1);
  const events = (body as { events?: unknown })?.events;
  return Array.isArray(events) ? events.length : 1;
}
