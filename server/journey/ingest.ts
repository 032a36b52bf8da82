// POST /journey/events as a pipeline of small steps, each of which may refuse the batch:
// backpressure → validate → link ownership → idempotency → monthly quota → durable spool → 202.
// Nothing on this path touches ClickHouse, and Postgres only on a link-cache miss or a conversion.
import { AppError } from "../errors";
import { emitEvents } from "../webhooks/outbox";
import type { JourneyRecord, JourneyRow } from "../ingest/journey/record";
import type { AppendOptions, Spool } from "../ingest/spool";
import type { IdempotencyJournal } from "../ingest/idempotency-journal";
import type { Kv } from "../storage/kv";
import type { IdempotencyKeys } from "./idempotency";
import type { DbOrTx } from "../storage/postgres/client";
import type { Metrics } from "../http/metrics";
import type { Logger } from "../http/logger";
import type { LinkOwnership } from "./link-cache";
import type { IngestAdmission, Refusal } from "./admission";
import type { UsageMeter, Reservation } from "./usage";
import { validateBatch } from "./validate";
import { toJourneyRow } from "../ingest/journey/rows";
import { chTime } from "../storage/clickhouse/format";
import { IDEMPOTENCY_WINDOW_MS, type JourneyEvent } from "./model";

export interface IngestDeps {
  db: DbOrTx;
  kv: Kv;
  spool: Spool<JourneyRecord>;
  /** Writes each batch's idempotency key to disk with the batch, so that a restart knows it was stored. */
  journal: IdempotencyJournal;
  idempotency: IdempotencyKeys;
  /** Resolves once the keys a previous process of this instance left are settled. */
  settled: Promise<void>;
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
/** How long a batch with a key waits, right after a start, for the previous process's keys to be settled. */
const SETTLE_WAIT_MS = 5_000;

// 503 for a batch the spool cannot take now; nothing of it is accepted. Built once: an Error captures
// its stack when constructed.
const OVERLOADED: Record<Refusal["reason"], AppError> = {
  spool_full: new AppError("SERVICE_UNAVAILABLE", "Ingest is over capacity; retry shortly", undefined, {
    "retry-after": OVERLOAD_RETRY_SECONDS,
  }),
  flush_lag: new AppError("SERVICE_UNAVAILABLE", "Ingest is over capacity; retry shortly", undefined, { "retry-after": "1" }),
};
/** The key's first batch is still being stored (or its instance died meanwhile and has not settled it). */
const KEY_PENDING = new AppError(
  "SERVICE_UNAVAILABLE",
  "A batch with this X-Idempotency-Key is still being stored; retry shortly",
  undefined,
  { "retry-after": "1" },
);
const NOT_SETTLED = new AppError("SERVICE_UNAVAILABLE", "Idempotency keys are not available yet; retry shortly", undefined, {
  "retry-after": "1",
});
/**
 * A refusal is answered this late: a client that ignores Retry-After and sends again at once would
 * otherwise spin the server on refusals and take the CPU the flusher needs to catch up.
 */
const REFUSAL_DELAY_MS = 100;

export async function ingestJourneyBatch(deps: IngestDeps, req: IngestRequest): Promise<IngestResult> {
  const refusal = deps.admission.refusal(req.nowMs);
  if (refusal) {
    reject(deps, "overload", req.body);
    await Bun.sleep(REFUSAL_DELAY_MS);
    throw OVERLOADED[refusal.reason];
  }
  let events: JourneyEvent[];
  try {
    events = validateBatch(req.body, req.nowMs);
    checkIdempotencyKey(req.idempotencyKey);
    await checkLinkOwnership(deps.links, req.accountId, events);
  } catch (err) {
    reject(deps, "validation", req.body);
    throw err;
  }
  const idemKey = req.idempotencyKey ? `idem:${req.accountId}:${req.idempotencyKey}` : null;
  if (idemKey) {
    await settledOrRefuse(deps.settled);
    const claim = await deps.idempotency.claim(idemKey);
    if (claim === "done") return { data: { message: "Batch already processed", count: 0, already_processed: true }, headers: {} };
    if (claim === "pending") throw KEY_PENDING;
  }
  const reservation = await reserveQuota(deps, req, events.length, idemKey);
  const rows = toRows(req, events);
  let keyDurable: Promise<void> | null = null;
  const journal = idemKey ? deps.journal : null;
  // The key goes to disk in the same moment as the batch, so that a restart knows the batch was stored.
  const durableKey: AppendOptions | undefined = journal
    ? { beforeWrite: (end) => void (keyDurable = journal.record(idemKey!, req.nowMs + IDEMPOTENCY_WINDOW_MS, end)) }
    : undefined;
  try {
    await deps.spool.append(rows, durableKey);
    await keyDurable;
  } catch (err) {
    await deps.usage.release(reservation).catch(() => {});
    if (idemKey) await deps.idempotency.release(idemKey).catch(() => {});
    if (keyDurable) journal!.forget(idemKey!);
    deps.logger.error({ msg: "journey spool append failed", error: String(err) });
    throw new AppError("SERVICE_UNAVAILABLE", "Events could not be stored; retry shortly", undefined, {
      "retry-after": OVERLOAD_RETRY_SECONDS,
    });
  }
  if (idemKey) {
    // Stored: a failure here leaves the key pending, and this instance's next start settles it as done.
    await deps.idempotency
      .done(idemKey)
      .catch((err) => deps.logger.error({ msg: "journey idempotency key not marked done", error: String(err) }));
  }
  deps.metrics.eventsAccepted.inc({ stream: "journey" }, rows.length);
  await emitConversions(deps, req, events, rows);
  return respond(rows.length, reservation);
}

const settledOnes = new WeakSet<Promise<void>>();

async function settledOrRefuse(settled: Promise<void>): Promise<void> {
  if (settledOnes.has(settled)) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => (timer = setTimeout(resolve, SETTLE_WAIT_MS, "late")));
  const outcome = await Promise.race([settled, late]);
  clearTimeout(timer);
  if (outcome === "late") throw NOT_SETTLED;
  settledOnes.add(settled);
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

async function reserveQuota(deps: IngestDeps, req: IngestRequest, count: number, idemKey: string | null): Promise<Reservation> {
  const r = await deps.usage.reserve(req.accountId, req.monthlyLimit, count, req.nowMs);
  if (r.ok) return r;
  if (idemKey) await deps.idempotency.release(idemKey);
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
  const events = Array.isArray(what) ? what : (what as { events?: unknown })?.events;
  deps.metrics.eventsRejected.inc({ stream: "journey", reason }, Array.isArray(events) ? events.length : 1);
}
