// Keeps the in-memory caches of several instances (links, API keys, custom domains) in step, so that a
// change answered on one instance is refused or served anew by every other one from the very next request.
//
// - A change is applied here, sent on its cache's channel with a change id (Postgres NOTIFY), and
//   answered once every other instance with a live lease has applied it and acknowledged it (a NOTIFY
//   on the changer's own channel), or once that instance's lease has run out, whichever comes first.
// - An instance's lease: every HEARTBEAT_MS it updates its row in `service_instances` and, in the same
//   statement, notifies itself. Postgres delivers notifications to a listener in commit order, and all
//   channels share one listening connection, so when that heartbeat comes back every change committed
//   before it has been applied here: the caches may answer until LEASE_MS after the heartbeat was sent.
//   An instance that has not heard its heartbeat back within the lease (stalled, cut off from Postgres)
//   drops its caches and answers from Postgres until it hears one again.
// - The changer waits for an instance that does not acknowledge at most until that instance's lease
//   has run out by Postgres's clock (its last heartbeat + LEASE_MS): by then it has either applied the
//   change or stopped answering from its cache. A dead instance holds a change up for at most that long.
// - The listening connection lost and re-established: notifications of the gap were never received, so
//   each cache is emptied and the lease ends until the next heartbeat comes back.
// - Embedded Postgres belongs to one process: no registry, no waiting, caches always valid.
import type { Postgres } from "../storage/postgres/client";
import * as repo from "./repository";

export const HEARTBEAT_MS = 1_000;
export const LEASE_MS = 5_000;
/** Below Postgres's 8,000-byte NOTIFY payload limit. */
export const NOTIFY_PAYLOAD_BYTES = 7_500;
/** Added to every wait on another instance's lease: clocks of different machines advance at slightly different rates. */
const CLOCK_MARGIN_MS = 100;
/** How long start-up waits for the first heartbeat to come back before serving without caches. */
const FIRST_BEAT_WAIT_MS = 5_000;
const HEADER = /^([0-9a-f]{16}) ([0-9a-f-]{36})$/;

export interface CacheHandlers {
  /** Applies one change (a payload the cache published) to this instance's cache. */
  apply(payload: string): void;
  /** Drops everything: changes may have been missed. */
  reset(): void;
}

export interface CacheChannel {
  /** Applies the changes here and resolves once every live instance has applied them (see above). */
  publish(payloads: readonly string[]): Promise<void>;
}

export interface SyncOptions {
  heartbeatMs?: number;
  leaseMs?: number;
  onError?: (msg: string, err: unknown) => void;
}

interface Waiter {
  acked: Set<string>;
  wake: () => void;
}

export class CacheSync {
  /** performance.now() until which caches may answer from memory; Infinity with embedded Postgres. */
  validUntil: number;
  private readonly local: boolean;
  private readonly selfChannel: string;
  private readonly heartbeatMs: number;
  private readonly leaseMs: number;
  private readonly onError: (msg: string, err: unknown) => void;
  private timer: ReturnType<typeof setInterval> | null = null;
  private beatSeq = 0;
  private readonly beatsInFlight = new Map<number, number>(); // seq → performance.now() when sent
  private beating = false;
  private firstBeat: (() => void) | null = null;
  private readonly waiters = new Map<string, Waiter>(); // change id → acknowledgements so far
  private acksToSend = new Map<string, string[]>(); // origin instance → change ids applied here
  private readonly resets: (() => void)[] = [];

  constructor(
    private readonly pg: Postgres,
    readonly instanceId: string,
    opts: SyncOptions = {},
  ) {
    this.local = pg.kind === "pglite";
    this.validUntil = this.local ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
    this.selfChannel = channelOf(instanceId);
    this.heartbeatMs = opts.heartbeatMs ?? HEARTBEAT_MS;
    this.leaseMs = opts.leaseMs ?? LEASE_MS;
    this.onError = opts.onError ?? (() => {});
  }

  /** Subscribes a cache. Every channel is subscribed before start(), which listens to this instance's own channel last. */
  async channel(name: string, handlers: CacheHandlers): Promise<CacheChannel> {
    this.resets.push(handlers.reset);
    if (!this.local)
      await this.pg.listen(
        name,
        (payload) => this.receive(payload, handlers),
        () => this.lost(),
      );
    return { publish: (payloads) => this.publish(name, payloads, handlers) };
  }

  /** Registers this instance and starts heartbeating; resolves once the first heartbeat came back (bounded). */
  async start(): Promise<void> {
    if (this.local) return;
    // Listened to after every cache channel, here and after a reconnect (the driver listens again in the
    // same order): a heartbeat that comes back was committed after every channel was listened to again.
    await this.pg.listen(
      this.selfChannel,
      (payload) => this.receiveOwn(payload),
      () => this.lost(),
    );
    await repo.register(this.pg, this.instanceId);
    const first = new Promise<void>((resolve) => (this.firstBeat = resolve));
    this.timer = setInterval(() => void this.beat(), this.heartbeatMs);
    this.timer.unref?.();
    void this.beat();
    await Promise.race([first, Bun.sleep(FIRST_BEAT_WAIT_MS)]);
  }

  /** A clean stop: leaves the registry so that no change waits for this instance. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (!this.local) await repo.deregister(this.pg, this.instanceId).catch((err) => this.onError("instance not deregistered", err));
  }

  // ---- changing ----

  private async publish(channel: string, payloads: readonly string[], handlers: CacheHandlers): Promise<void> {
    for (const p of payloads) handlers.apply(p);
    if (this.local || payloads.length === 0) return;
    const ids = payloads.map(newChangeId);
    for (const id of ids) this.waiters.set(id, { acked: new Set(), wake: () => {} });
    try {
      // Sent before the registry is read: an instance registered after that read loads what is committed now.
      await Promise.all(payloads.map((p, i) => this.pg.notify(channel, `${ids[i]} ${this.instanceId}\n${p}`)));
      let live: { id: string; leftMs: number }[];
      try {
        live = await repo.liveInstances(this.pg, this.instanceId, this.leaseMs);
      } catch (err) {
        // Who is alive is unknown: wait out any lease that began before the change.
        this.onError("instance registry not read; waiting out the lease", err);
        await Bun.sleep(this.leaseMs + CLOCK_MARGIN_MS);
        return;
      }
      const at = performance.now();
      await this.acknowledged(
        ids,
        live.map((x) => ({ id: x.id, deadline: at + x.leftMs + CLOCK_MARGIN_MS })),
      );
    } finally {
      for (const id of ids) this.waiters.delete(id);
    }
  }

  /** Resolves once each instance acknowledged every change, or its deadline passed. */
  private async acknowledged(ids: string[], instances: { id: string; deadline: number }[]): Promise<void> {
    for (;;) {
      const now = performance.now();
      const missing = instances.filter((x) => x.deadline > now && ids.some((id) => !this.waiters.get(id)!.acked.has(x.id)));
      if (missing.length === 0) return;
      const until = Math.min(...missing.map((x) => x.deadline));
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, until - now);
        const wake = () => {
          clearTimeout(timer);
          resolve();
        };
        for (const id of ids) this.waiters.get(id)!.wake = wake;
      });
    }
  }

  // ---- receiving ----

  private receive(payload: string, handlers: CacheHandlers): void {
    const nl = payload.indexOf("\n");
    const header = nl < 0 ? null : HEADER.exec(payload.slice(0, nl));
    if (!header) return handlers.apply(payload); // from an instance of an older version: nothing to acknowledge
    const [, changeId, origin] = header;
    if (origin === this.instanceId) return; // applied when published
    handlers.apply(payload.slice(nl + 1));
    this.acknowledge(origin, changeId);
  }

  /** Acknowledgements go out together, one NOTIFY per changing instance per turn of the event loop. */
  private acknowledge(origin: string, changeId: string): void {
    const queued = this.acksToSend.get(origin);
    if (queued) return void queued.push(changeId);
    this.acksToSend.set(origin, [changeId]);
    if (this.acksToSend.size === 1) setImmediate(() => this.sendAcks());
  }

  private sendAcks(): void {
    const batches = this.acksToSend;
    this.acksToSend = new Map();
    for (const [origin, ids] of batches) {
      for (const payload of packPayloads(ids, " ", `ack ${this.instanceId}`)) {
        this.pg.notify(channelOf(origin), payload).catch((err) => this.onError("change not acknowledged", err));
      }
    }
  }

  private receiveOwn(payload: string): void {
    const [kind, a, ...rest] = payload.split(" ");
    if (kind === "beat") return this.heardBeat(Number(a));
    if (kind === "ack") {
      for (const id of rest) {
        const w = this.waiters.get(id);
        if (!w) continue;
        w.acked.add(a);
        w.wake();
      }
    }
  }

  // ---- the lease ----

  private async beat(): Promise<void> {
    if (this.beating) return; // the previous one has not been answered: Postgres is slow, do not pile up
    this.beating = true;
    const seq = ++this.beatSeq;
    this.beatsInFlight.set(seq, performance.now());
    try {
      await repo.beat(this.pg, this.instanceId, this.selfChannel, `beat ${seq}`);
    } catch (err) {
      this.beatsInFlight.delete(seq);
      this.onError("heartbeat failed", err);
    } finally {
      this.beating = false;
    }
  }

  private heardBeat(seq: number): void {
    const sentAt = this.beatsInFlight.get(seq);
    if (sentAt === undefined) return;
    for (const s of this.beatsInFlight.keys()) if (s <= seq) this.beatsInFlight.delete(s);
    this.validUntil = Math.max(this.validUntil, sentAt + this.leaseMs);
    this.firstBeat?.();
    this.firstBeat = null;
  }

  /** The listening connection was re-established: what was sent meanwhile was never received. */
  private lost(): void {
    this.validUntil = Number.NEGATIVE_INFINITY;
    this.beatsInFlight.clear();
    for (const reset of this.resets) reset();
  }
}

/** This instance's own channel: its heartbeats and the acknowledgements of its changes. */
const channelOf = (instanceId: string) => `svc_instance_${instanceId.replaceAll("-", "")}`;

const newChangeId = () => Buffer.from(crypto.getRandomValues(new Uint8Array(8))).toString("hex");

/** Joins items with `sep` into payloads under the NOTIFY limit, each beginning with `head` when given. */
export function packPayloads(items: readonly string[], sep: string, head?: string): string[] {
  const out: string[] = [];
  let group: string[] = head === undefined ? [] : [head];
  let size = head?.length ?? 0;
  const base = group.length;
  for (const item of items) {
    if (group.length > base && size + sep.length + item.length > NOTIFY_PAYLOAD_BYTES) {
      out.push(group.join(sep));
      group = group.slice(0, base);
      size = head?.length ?? 0;
    }
    size += (group.length > 0 ? sep.length : 0) + item.length;
    group.push(item);
  }
  if (group.length > base) out.push(group.join(sep));
  return out;
}
