// The event client an app holds: builds and checks events, queues them in batches of at most 100
// (persisted through the storage), and delivers them one batch at a time with retries.
import { uuid } from "./ids";
import { BatchQueue, type Batch, type StoredIdentity } from "./queue";
import { backoffMs, type RetryOptions } from "./retry";
import { memoryStorage, type EventStorage } from "./storage";
import { sendBatch, type FetchLike } from "./transport";
import type { EventContext, EventIdentity, JourneyEvent, JourneyUsage, PropertyValue } from "./types";
import { MAX_BATCH, validateEvent } from "./validate";

export interface EventClientOptions {
  /** An API key with the `journey:write` scope. */
  apiKey: string;
  /** Origin of the service, e.g. `https://svc.example.com`; events go to `<baseUrl>/public-api/v1/journey/events`. */
  baseUrl?: string;
  /** The full ingest URL instead of `baseUrl`. */
  endpoint?: string;
  /** Link the events belong to, unless an event or identify() / attributeFromUrl() says otherwise. */
  linkId?: string;
  /** Visitor id of this install or user (default: a random id generated once and stored). */
  visitorId?: string;
  /** Where unsent batches are kept (default: memory). */
  storage?: EventStorage;
  /** Prefix of the storage keys (default `svc-events`); two clients on one storage need different ones. */
  storageKey?: string;
  /** Device and place fields added to every event that does not set them. */
  context?: EventContext;
  /** `page_url` of screens and app events: `<appUrl>/<screen>` (default `app://app`). */
  appUrl?: string;
  /** Events per batch, 1 to 100 (default 100). */
  batchSize?: number;
  /** A batch is sent this long after its first event at the latest (default 10,000 ms). */
  flushIntervalMs?: number;
  /** Bound of the queue in events (default 1,000): past it the oldest events are dropped. */
  maxQueuedEvents?: number;
  /** Inactivity after which the next event starts a new session (default 30 minutes). */
  sessionTimeoutMs?: number;
  /** Time limit of one request (default 15,000 ms). */
  timeoutMs?: number;
  retry?: RetryOptions;
  /** The platform's fetch (default: the global one). */
  fetch?: FetchLike;
  /** Events that will never be stored: dropped to hold the bound, or refused by the API. */
  onDrop?: (drop: DroppedEvents) => void;
  /** The account is past its monthly journey limit (the 202 carried `usage`). */
  onUsageWarning?: (usage: JourneyUsage) => void;
  /** Storage failures (the events stay in memory and the write is tried again). */
  onError?: (error: unknown) => void;
}

export interface DroppedEvents {
  /** `queue_full`: the bound was reached; `rejected`: the API refused them (4xx other than 408/429). */
  reason: "queue_full" | "rejected";
  events: JourneyEvent[];
  /** HTTP status and error of a refusal. */
  status?: number;
  error?: string;
}

export interface ClientStats {
  /** Events not delivered yet. */
  queued: number;
  batches: number;
  /** Events the API has accepted since the client started (a repeat answered `already_processed` included). */
  delivered: number;
  dropped: number;
  /** Epoch ms of the next automatic send of a waiting batch, or null. */
  nextSendAt: number | null;
  lastError: string | null;
}

/** Fields of an event; the client fills in the rest (identity, page, context, timestamp). */
export type TrackEvent = Partial<JourneyEvent>;
type Properties = Record<string, PropertyValue>;

const INGEST_PATH = "/public-api/v1/journey/events";
const SVC_REF = /[?&#]svc_ref=([0-9a-fA-F-]{36})\.([^&#]+)/;
/** last_event_at is written to storage when it moves by more than this (not on every event). */
const ACTIVITY_SAVE_MS = 60_000;
/** Timers past 2^31 ms fire at once; a far Retry-After is waited out in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Opens the client: loads what an earlier run of the app left in the storage, then sends it. */
export async function createEventClient(options: EventClientOptions): Promise<EventClient> {
  if (!options.apiKey) throw new TypeError("apiKey: required");
  if (!options.endpoint && !options.baseUrl) throw new TypeError("baseUrl: required (or endpoint)");
  const batchSize = options.batchSize ?? MAX_BATCH;
  if (!(Number.isInteger(batchSize) && batchSize >= 1 && batchSize <= MAX_BATCH))
    throw new TypeError(`batchSize: must be 1 to ${MAX_BATCH}`);
  const storage = options.storage ?? memoryStorage();
  const queue = await BatchQueue.open(storage, options.storageKey ?? "svc-events", () => ({
    link_id: options.linkId,
    visitor_id: options.visitorId ?? uuid(),
    session_id: uuid(),
    last_event_at: 0,
  }));
  const client = new EventClient(options, queue, batchSize);
  client.resume();
  return client;
}

export class EventClient {
  private readonly endpoint: string;
  private readonly fetch: FetchLike;
  private readonly maxQueued: number;
  private readonly appRoot: string;
  /** page_url of events that do not set one: the last screen or page. */
  private currentPage: string;
  private sending: Promise<void> | null = null;
  private sealTimer: ReturnType<typeof setTimeout> | null = null;
  private wakeTimer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;
  private delivered = 0;
  private dropped = 0;
  private lastError: string | null = null;
  private savedActivityAt: number;

  /** Use createEventClient(). */
  constructor(
    private readonly opts: EventClientOptions,
    private readonly queue: BatchQueue,
    private readonly batchSize: number,
  ) {
    this.endpoint = opts.endpoint ?? opts.baseUrl!.replace(/\/+$/, "") + INGEST_PATH;
    this.fetch = opts.fetch ?? ((url, init) => globalThis.fetch(url, init));
    this.maxQueued = Math.max(1, opts.maxQueuedEvents ?? 1000);
    this.appRoot = (opts.appUrl ?? "app://app").replace(/\/+$/, "");
    this.currentPage = this.appRoot + "/";
    this.savedActivityAt = queue.identity.last_event_at;
    // Options given now win over what an earlier run stored.
    if (opts.linkId && opts.linkId !== queue.identity.link_id) this.setIdentity({ link_id: opts.linkId });
    if (opts.visitorId && opts.visitorId !== queue.identity.visitor_id) this.setIdentity({ visitor_id: opts.visitorId });
  }

  /**
   * A custom event: `track("signup", { plan: "pro" })`, or any event as an object, e.g. from a server
   * for one of its users: `track({ event_name: "signup", visitor_id: user.id, link_id })`.
   * Throws InvalidEventError (naming the field) for an event the API would refuse; the promise
   * resolves once the event is in the storage.
   */
  track(event: string | TrackEvent, properties?: Properties): Promise<void> {
    const fields: TrackEvent = typeof event === "string" ? { event_name: event, properties } : { ...event };
    return this.enqueue({ event_type: "custom", ...fields });
  }

  /** A page view of an app screen: page_url `<appUrl>/<name>`, which later events carry too. */
  screen(name: string, properties?: Properties, fields: TrackEvent = {}): Promise<void> {
    const url = `${this.appRoot}/${encodeURIComponent(name)}`;
    const event = this.build({ page_title: name, properties, ...fields, event_type: "page_view", page_url: url });
    this.currentPage = url;
    return this.add(event);
  }

  /** A page view of a URL (web views, server-rendered pages); later events carry it as their page_url. */
  page(url: string, fields: TrackEvent = {}): Promise<void> {
    const event = this.build({ ...fields, event_type: "page_view", page_url: url });
    this.currentPage = url;
    return this.add(event);
  }

  /** A conversion: `conversion("purchase", { revenue_cents: 4999, currency: "EUR", properties })`. */
  conversion(name: string, details: TrackEvent = {}): Promise<void> {
    return this.enqueue({ ...details, event_type: "conversion", conversion_name: name });
  }

  /** Sets who later events are about (kept in the storage): the link, the visitor, the session. */
  identify(identity: Partial<EventIdentity>): Promise<void> {
    this.setIdentity(identity);
    return this.queue.persist();
  }

  /**
   * Attribution from a short link that opened the app: the redirect of a link with conversion
   * tracking appends `svc_ref=<link_id>.<click_id>`. Later events carry that link and the click id as
   * the visitor id, which joins conversions to the click. Returns false when the URL has none.
   */
  attributeFromUrl(url: string): boolean {
    const m = SVC_REF.exec(url);
    if (!m) return false;
    let visitor: string;
    try {
      visitor = decodeURIComponent(m[2]);
    } catch {
      return false;
    }
    this.setIdentity({ link_id: m[1].toLowerCase(), visitor_id: visitor, session_id: uuid() });
    this.queue.persist().catch((err) => this.opts.onError?.(err));
    return true;
  }

  /** Starts a new session for the next events. */
  resetSession(): void {
    this.setIdentity({ session_id: uuid() });
  }

  /** Who events are about now. */
  get identity(): EventIdentity {
    const { link_id, visitor_id, session_id } = this.queue.identity;
    return { link_id, visitor_id, session_id } as EventIdentity;
  }

  /**
   * Sends what is queued now, without waiting for the batch timer or a backoff (a server's
   * Retry-After is still honoured). Resolves when that attempt is over; what failed stays queued.
   */
  async flush(): Promise<ClientStats> {
    this.queue.seal();
    this.clearSealTimer();
    while (this.sending) await this.sending;
    await this.pump(true);
    return this.stats();
  }

  /**
   * Stops taking events and delivers what is queued, waiting out backoffs, until the queue is empty
   * or `timeoutMs` (default 10,000) has passed. What is left stays in the storage for the next start.
   */
  async shutdown({ timeoutMs = 10_000 }: { timeoutMs?: number } = {}): Promise<ClientStats> {
    this.closed = true;
    const deadline = Date.now() + timeoutMs;
    await this.flush();
    while (this.queue.size > 0 && Date.now() < deadline) {
      if (this.sending) {
        await this.sending;
        continue;
      }
      const at = this.queue.nextSendAt();
      if (at === null || at > deadline) break;
      this.clearWakeTimer();
      await sleep(Math.max(0, at - Date.now()));
      await this.pump(false);
    }
    this.clearSealTimer();
    this.clearWakeTimer();
    await this.queue.persist().catch((err) => this.opts.onError?.(err));
    return this.stats();
  }

  stats(): ClientStats {
    return {
      queued: this.queue.size,
      batches: this.queue.batchCount,
      delivered: this.delivered,
      dropped: this.dropped,
      nextSendAt: this.queue.nextSendAt(),
      lastError: this.lastError,
    };
  }

  /** Called once by createEventClient: sends what an earlier run left. */
  resume(): void {
    if (this.queue.open) this.armSealTimer();
    void this.pump(false);
  }

  // ---- building events ----

  private enqueue(fields: TrackEvent): Promise<void> {
    return this.add(this.build(fields));
  }

  /** The event with the client's defaults filled in, checked against the API's rules. */
  private build(fields: TrackEvent): JourneyEvent {
    if (this.closed) throw new Error("the event client is shut down");
    const now = Date.now();
    const id = this.queue.identity;
    if (fields.session_id === undefined && fields.visitor_id === undefined) this.touchSession(now);
    const event = {
      ...this.opts.context,
      link_id: id.link_id,
      visitor_id: id.visitor_id,
      session_id: fields.visitor_id === undefined ? id.session_id : undefined,
      page_url: this.currentPage,
      timestamp: new Date(now).toISOString(),
      ...withoutUndefined(fields),
    } as JourneyEvent;
    validateEvent(event, now);
    return event;
  }

  private touchSession(now: number): void {
    const id = this.queue.identity;
    const timeout = this.opts.sessionTimeoutMs ?? 30 * 60_000;
    if (id.last_event_at && now - id.last_event_at > timeout) this.setIdentity({ session_id: uuid() });
    id.last_event_at = now;
    if (now - this.savedActivityAt > ACTIVITY_SAVE_MS) {
      this.savedActivityAt = now;
      this.queue.identityChanged();
    }
  }

  private setIdentity(change: Partial<EventIdentity>): void {
    const id: StoredIdentity = this.queue.identity;
    if (change.link_id !== undefined) id.link_id = change.link_id;
    if (change.visitor_id !== undefined) id.visitor_id = change.visitor_id;
    if (change.session_id !== undefined) id.session_id = change.session_id;
    this.queue.identityChanged();
  }

  // ---- queueing ----

  private add(event: JourneyEvent): Promise<void> {
    const dropped = this.queue.add(event, this.batchSize, this.maxQueued);
    if (dropped.length) this.report({ reason: "queue_full", events: dropped });
    if (!this.queue.open) {
      this.clearSealTimer();
      void this.pump(false);
    } else this.armSealTimer();
    const saved = this.queue.persist();
    saved.catch((err) => this.opts.onError?.(err));
    return saved;
  }

  private armSealTimer(): void {
    if (this.sealTimer) return;
    this.sealTimer = timer(() => {
      this.sealTimer = null;
      this.queue.seal();
      void this.pump(false);
    }, this.opts.flushIntervalMs ?? 10_000);
  }

  private clearSealTimer(): void {
    if (this.sealTimer) clearTimeout(this.sealTimer);
    this.sealTimer = null;
  }

  private clearWakeTimer(): void {
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeTimer = null;
  }

  private report(drop: DroppedEvents): void {
    this.dropped += drop.events.length;
    try {
      this.opts.onDrop?.(drop);
    } catch {}
  }

  // ---- delivery ----

  /** One delivery pass: the head batch while it is due, one request at a time. */
  private pump(force: boolean): Promise<void> {
    if (this.sending) return this.sending;
    this.clearWakeTimer();
    this.sending = (async () => {
      let last: Batch | undefined;
      let again = false;
      for (;;) {
        const batch = this.queue.head(Date.now(), force);
        // A batch that failed in this pass waits for the next one.
        if (!batch || (batch === last && !again)) return;
        last = batch;
        again = await this.deliver(batch);
      }
    })().finally(() => {
      this.sending = null;
      this.armWakeTimer();
    });
    return this.sending;
  }

  private armWakeTimer(): void {
    const at = this.queue.nextSendAt();
    if (at === null || this.wakeTimer) return;
    this.wakeTimer = timer(
      () => {
        this.wakeTimer = null;
        void this.pump(false);
      },
      Math.min(MAX_TIMER_MS, Math.max(0, at - Date.now())),
    );
  }

  /** One send of the batch; true when what is left of it may go again at once. */
  private async deliver(batch: Batch): Promise<boolean> {
    batch.inFlight = true;
    try {
      // The key is in the storage before the first send, so a restart resends under the same key.
      await this.queue.persist();
    } catch {
      batch.inFlight = false;
      batch.retryAt = Date.now() + backoffMs(1, this.opts.retry);
      return false;
    }
    const events = batch.events.slice();
    const outcome = await sendBatch({
      url: this.endpoint,
      apiKey: this.opts.apiKey,
      idempotencyKey: batch.key,
      events,
      timeoutMs: this.opts.timeoutMs ?? 15_000,
      fetch: this.fetch,
    });
    batch.inFlight = false;
    const now = Date.now();
    switch (outcome.kind) {
      case "delivered":
        this.queue.remove(batch);
        this.delivered += events.length;
        this.lastError = null;
        if (outcome.usage) this.opts.onUsageWarning?.(outcome.usage);
        break;
      case "invalid": {
        // Nothing of the batch was stored: the rest goes again at once, under the same key.
        const bad = this.queue.takeEvents(batch, outcome.indexes);
        this.report({ reason: "rejected", events: bad, status: outcome.status, error: outcome.error });
        this.lastError = outcome.error;
        break;
      }
      case "rejected":
        this.queue.remove(batch);
        this.report({ reason: "rejected", events, status: outcome.status, error: outcome.error });
        this.lastError = outcome.error;
        break;
      case "retry": {
        batch.attempts += 1;
        const hold = outcome.retryAfterMs ?? 0;
        batch.holdUntil = now + hold;
        batch.retryAt = now + Math.max(hold, backoffMs(batch.attempts, this.opts.retry));
        this.queue.changed(batch);
        this.lastError = outcome.error;
        break;
      }
    }
    await this.queue.persist().catch((err) => this.opts.onError?.(err));
    return outcome.kind === "invalid";
  }
}

function withoutUndefined(fields: TrackEvent): TrackEvent {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) out[k] = v;
  return out as TrackEvent;
}

/** A timer that does not keep a Node or Bun process alive (call shutdown() before exiting). */
function timer(fn: () => void, ms: number): ReturnType<typeof setTimeout> {
  const t = setTimeout(fn, ms);
  (t as { unref?: () => void }).unref?.();
  return t;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
