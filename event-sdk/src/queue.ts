// The persistent, bounded queue of batches. Each batch gets its idempotency key when it is opened and
// keeps it for every send, across restarts of the app. Storage layout under the prefix:
//   <prefix>:state      {v, ids: [batch ids in order], next, identity}
//   <prefix>:batch:<id> {k: key, e: events, s: sealed, a: attempts, r: retry at, h: hold until}
// Writes are coalesced: however many changes come in meanwhile, at most one write pass runs and one
// waits. A pass removes deleted batches, then writes the state, then changed batches; a crash between
// two writes leaves at worst an id whose batch is missing, which loading skips.
import { uuid } from "./ids";
import type { EventStorage } from "./storage";
import type { JourneyEvent } from "./types";

export interface Batch {
  readonly id: number;
  /** The X-Idempotency-Key of every send of this batch. */
  readonly key: string;
  events: JourneyEvent[];
  /** Sealed batches take no more events and may be sent. */
  sealed: boolean;
  /** Failed sends so far. */
  attempts: number;
  /** Epoch ms before which the batch is not sent again on its own (backoff). */
  retryAt: number;
  /** Epoch ms before which it is not sent even on flush() (the server's Retry-After). */
  holdUntil: number;
  inFlight: boolean;
}

/** Who the app's events are about, kept across restarts. */
export interface StoredIdentity {
  link_id?: string;
  visitor_id: string;
  session_id: string;
  /** Epoch ms of the last tracked event (sessions rotate after inactivity). */
  last_event_at: number;
}

interface StateDoc {
  v: 1;
  ids: number[];
  next: number;
  identity: StoredIdentity;
}

interface BatchDoc {
  k: string;
  e: JourneyEvent[];
  s: boolean;
  a: number;
  r: number;
  h: number;
}

export class BatchQueue {
  private readonly batches: Batch[] = [];
  private next = 1;
  private events = 0;
  private dirtyState = false;
  private readonly dirty = new Set<Batch>();
  private readonly removed = new Set<number>();
  private chain: Promise<void> = Promise.resolve();
  private waiting: Promise<void> | null = null;

  private constructor(
    private readonly storage: EventStorage,
    private readonly prefix: string,
    public identity: StoredIdentity,
  ) {}

  /** Loads what an earlier run left; a batch that cannot be read is skipped. */
  static async open(storage: EventStorage, prefix: string, fresh: () => StoredIdentity): Promise<BatchQueue> {
    const state = parse<StateDoc>(await storage.getItem(`${prefix}:state`));
    const q = new BatchQueue(storage, prefix, state?.identity ?? fresh());
    if (!state) {
      q.dirtyState = true;
      return q;
    }
    q.next = state.next;
    for (const id of state.ids) {
      const doc = parse<BatchDoc>(await storage.getItem(q.batchKey(id)));
      if (!doc || !Array.isArray(doc.e) || doc.e.length === 0) {
        q.dirtyState = true;
        continue;
      }
      q.batches.push({ id, key: doc.k, events: doc.e, sealed: doc.s, attempts: doc.a, retryAt: doc.r, holdUntil: doc.h, inFlight: false });
      q.events += doc.e.length;
    }
    return q;
  }

  /** Events waiting to be delivered (the batch in flight included). */
  get size(): number {
    return this.events;
  }
  get batchCount(): number {
    return this.batches.length;
  }
  /** The batch still taking events, if any. */
  get open(): Batch | undefined {
    const last = this.batches[this.batches.length - 1];
    return last && !last.sealed ? last : undefined;
  }

  /**
   * Adds an event to the open batch (opening one with a new key if needed), seals the batch at
   * `batchSize`, then holds the queue to `maxEvents` by dropping the oldest events, never from the
   * batch in flight. Returns the dropped events.
   */
  add(event: JourneyEvent, batchSize: number, maxEvents: number): JourneyEvent[] {
    let batch = this.open;
    if (!batch) {
      batch = { id: this.next++, key: uuid(), events: [], sealed: false, attempts: 0, retryAt: 0, holdUntil: 0, inFlight: false };
      this.batches.push(batch);
      this.dirtyState = true;
    }
    batch.events.push(event);
    this.events += 1;
    if (batch.events.length >= batchSize) batch.sealed = true;
    this.dirty.add(batch);
    const dropped: JourneyEvent[] = [];
    for (const b of [...this.batches]) {
      if (this.events <= maxEvents) break;
      if (b.inFlight) continue;
      const cut = b.events.splice(0, Math.min(b.events.length, this.events - maxEvents));
      this.events -= cut.length;
      dropped.push(...cut);
      if (b.events.length === 0) this.dropEmptied(b);
      else this.dirty.add(b);
    }
    return dropped;
  }

  /** Seals the open batch so that it can be sent. */
  seal(): void {
    const b = this.open;
    if (b) {
      b.sealed = true;
      this.dirty.add(b);
    }
  }

  /**
   * The oldest sealed batch when it may be sent now. First in, first out: while the head waits (an
   * outage, a Retry-After), the batches behind it wait too. `force` (flush) skips the backoff but not
   * the server's Retry-After.
   */
  head(nowMs: number, force: boolean): Batch | undefined {
    const b = this.batches[0];
    if (!b || !b.sealed || b.inFlight) return undefined;
    return (force ? b.holdUntil : Math.max(b.retryAt, b.holdUntil)) <= nowMs ? b : undefined;
  }

  /** Epoch ms at which the head batch may go out on its own, or null when nothing is sealed. */
  nextSendAt(): number | null {
    const b = this.batches[0];
    return b && b.sealed && !b.inFlight ? Math.max(b.retryAt, b.holdUntil) : null;
  }

  /** Takes the batch out of the queue (its events leave the count: delivered or dropped). */
  remove(b: Batch): void {
    const i = this.batches.indexOf(b);
    if (i < 0) return;
    this.batches.splice(i, 1);
    this.events -= b.events.length;
    this.dirty.delete(b);
    this.removed.add(b.id);
    this.dirtyState = true;
  }

  /**
   * A batch emptied by the bound: when it was the head, the next batch takes over its wait and its
   * attempt count, so that an outage or a Retry-After still holds the queue and the backoff goes on growing.
   */
  private dropEmptied(b: Batch): void {
    const next = this.batches[0] === b ? this.batches[1] : undefined;
    if (next) {
      next.retryAt = Math.max(next.retryAt, b.retryAt);
      next.holdUntil = Math.max(next.holdUntil, b.holdUntil);
      next.attempts = Math.max(next.attempts, b.attempts);
      this.dirty.add(next);
    }
    this.remove(b);
  }

  /** Takes the events at `indexes` out of the batch and returns them; an emptied batch is removed. */
  takeEvents(b: Batch, indexes: number[]): JourneyEvent[] {
    const drop = new Set(indexes);
    const taken = b.events.filter((_, i) => drop.has(i));
    b.events = b.events.filter((_, i) => !drop.has(i));
    this.events -= taken.length;
    if (b.events.length === 0) this.remove(b);
    else this.dirty.add(b);
    return taken;
  }

  changed(b: Batch): void {
    if (this.batches.includes(b)) this.dirty.add(b);
  }

  identityChanged(): void {
    this.dirtyState = true;
  }

  /** Resolves once every change made before the call is in storage. */
  persist(): Promise<void> {
    if (this.waiting) return this.waiting;
    const pass = this.chain.then(() => {
      this.waiting = null;
      return this.writePass();
    });
    this.waiting = pass;
    this.chain = pass.catch(() => {});
    return pass;
  }

  private async writePass(): Promise<void> {
    const removed = [...this.removed];
    const dirty = [...this.dirty];
    const state = this.dirtyState;
    this.removed.clear();
    this.dirty.clear();
    this.dirtyState = false;
    try {
      for (const id of removed) await this.storage.removeItem(this.batchKey(id));
      if (state) {
        const doc: StateDoc = { v: 1, ids: this.batches.map((b) => b.id), next: this.next, identity: this.identity };
        await this.storage.setItem(`${this.prefix}:state`, JSON.stringify(doc));
      }
      for (const b of dirty) {
        if (!this.batches.includes(b)) continue;
        const doc: BatchDoc = { k: b.key, e: b.events, s: b.sealed, a: b.attempts, r: b.retryAt, h: b.holdUntil };
        await this.storage.setItem(this.batchKey(b.id), JSON.stringify(doc));
      }
    } catch (err) {
      // Written again by the next pass.
      for (const id of removed) this.removed.add(id);
      for (const b of dirty) this.dirty.add(b);
      if (state) this.dirtyState = true;
      throw err;
    }
  }

  private batchKey(id: number): string {
    return `${this.prefix}:batch:${id}`;
  }
}

function parse<T>(text: string | null): T | null {
  if (text === null) return null;
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}
