// Owns delivery: batching (at most 100 events and well under the 64 KB keepalive limit),
// keepalive POSTs with one idempotency key per batch (reused by its retries), exponential
// backoff honouring Retry-After, and unsent batches kept in localStorage across page loads.
import type { JourneyEventWire } from "./protocol";
import { uuid } from "./ids";
import type { Store, TrackerOptions } from "./tracker";

// Built without the test-only options in t.js: see SVC_SCRIPT in tracker.ts.
declare const SVC_SCRIPT: boolean | undefined;

// k: idempotency key, e: events (0 once delivered or dropped), n: failed attempts, t: earliest next attempt (ms; Infinity while
// in flight, which JSON turns into null, so a batch in flight when the page died is resent on load)
interface Batch {
  k: string;
  e: JourneyEventWire[] | 0;
  n: number;
  t: number;
}

/** send(event) queues an event (posted after the flush delay, or at once at 100); send() posts the queue now. */
export type Send = (e?: JourneyEventWire) => void;

export function createSender(o: TrackerOptions, w: Window, now: () => number, st: Store): Send {
  const later = (typeof SVC_SCRIPT == "undefined" && o.setTimeout) || w.setTimeout.bind(w);
  let B: Batch[] = st(0, "b") || [];
  const q: JourneyEventWire[] = [];
  let tm: unknown;

  // Delivered or dropped batches (e = 0) go; at most 20 are kept, the oldest go first.
  const keep = () => st(0, "b", (B = B.filter((b) => b.e).slice(-20)));

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
            // 2xx: delivered; 4xx other than 408/429: the batch can never succeed, drop it.
            if (/^[1-4](?!08|29)/.test(r.status as any)) b.e = 0 as any;
            else {
              let ms = Math.min(1e3 * 2 ** b.n++, 3e5);
              b.t = now() + (ms = +r.headers?.get("Retry-After")! * 1e3 || ms);
              later(pump, Math.min(ms, 1e9)); // timers overflow past 2^31 ms
            }
            keep();
          });
      }
  };

  const send: Send = (e) => {
    if (e && q.push(e) < 100) tm ||= later(send, (typeof SVC_SCRIPT == "undefined" ? o.flushDelay : undefined) ?? 1e3);
    else {
      // Cut the queue (never over 100 events: the 100th flushes it) into batches of at most
      // 60,000 bytes of UTF-8 each.
      tm = 0;
      while (q.length) {
        let n = 0;
        for (let s = 0; q[n] && (s += new Blob([JSON.stringify(q[n])]).size) < 6e4; ) n++;
        B.push({ k: uuid(), e: q.splice(0, n || 1), n: 0, t: 0 });
      }
      keep();
      pump(); // batches left by an earlier page load go out too, once their backoff is over
    }
  };
  return send;
}
