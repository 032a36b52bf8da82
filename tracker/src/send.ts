// Owns delivery: batching (at most 100 events and well under the 64 KB keepalive limit),
// keepalive POSTs with one idempotency key per batch (reused by its retries), exponential
// backoff honouring Retry-After, and unsent batches kept in localStorage across page loads.
import type { JourneyEventWire } from "./protocol";
import { type Store, uuid } from "./store";
import type { TrackerOptions } from "./tracker";

// k: idempotency key, e: events, n: failed attempts, t: earliest next attempt (ms; Infinity while
// in flight, which JSON turns into null, so a batch in flight when the page died is resent on load)
interface Batch {
  k: string;
  e: JourneyEventWire[];
  n: number;
  t: number;
}

/** send(event) queues an event (posted after the flush delay, or at once at 100); send() posts the queue now. */
export type Send = (e?: JourneyEventWire) => void;

export function createSender(o: TrackerOptions, w: Window, now: () => number, st: Store): Send {
  const later = o.setTimeout || w.setTimeout.bind(w);
  const B: Batch[] = st(0, "b") || [];
  const q: JourneyEventWire[] = [];
  let tm: unknown;

  // At most 20 batches are kept; the oldest go first.
  const keep = () => st(0, "b", B.splice(0, B.length - 20) && B);

  const pump = () => {
    for (const b of B)
      if (b.t <= now()) {
        b.t = 1 / 0;
        w.fetch(o.api + "/journey/events", {
          method: "POST",
          keepalive: true,
          headers: { "Content-Type": "application/json", "X-API-Key": o.key, "X-Idempotency-Key": b.k },
          body: JSON.stringify({ events: b.e }),
        })
          .catch(Object) // a network error goes on as the error itself: no status, no headers
          .then((r: Response) => {
            const s = r.status;
            // 2xx: delivered; 4xx other than 408/429: the batch can never succeed, drop it.
            if (s < 500 && s != 408 && s != 429) B.splice(B.indexOf(b) >>> 0, 1); // -1 (already dropped) becomes 2^32 - 1: no-op
            else {
              const ms = +r.headers?.get("Retry-After")! * 1e3 || Math.min(1e3 * 2 ** b.n, 3e5);
              b.n++;
              b.t = now() + ms;
              later(pump, Math.min(ms, 1e9)); // timers overflow past 2^31 ms
            }
            keep();
          });
      }
  };

  const send: Send = (e) => {
    if (e && q.push(e) < 100) tm ||= later(send, o.flushDelay ?? 1e3);
    else {
      // Cut the queue into batches of at most 100 events and 60,000 bytes of UTF-8 each.
      tm = 0;
      while (q.length) {
        let n = 0;
        for (let s = 0; n < 100 && q[n] && (s += new Blob([JSON.stringify(q[n])]).size) < 6e4; ) n++;
        B.push({ k: uuid(), e: q.splice(0, n || 1), n: 0, t: 0 });
      }
      keep();
      pump(); // batches left by an earlier page load go out too, once their backoff is over
    }
  };
  return send;
}
