// Owns delivery: batching (at most 100 events and well under the 64 KB keepalive limit),
// keepalive POSTs with one idempotency key per batch (reused by its retries), exponential
// backoff honouring Retry-After, and unsent batches kept in localStorage across page loads.
import type { JourneyEventWire } from "./protocol";
import { LS, load, save, uuid } from "./store";

// k: idempotency key, e: events, n: failed attempts, t: earliest next attempt (ms; Infinity while
// in flight, which JSON turns into null, so a batch in flight when the page died is resent on load)
interface Batch {
  k: string;
  e: JourneyEventWire[];
  n: number;
  t: number;
}

export interface Sender {
  add(e: JourneyEventWire): void;
  flush(): void;
}

export function createSender(
  url: string,
  key: string,
  w: Window,
  now: () => number,
  st: (f: () => void, ms: number) => unknown,
  delay: number,
): Sender {
  const B: Batch[] = load(w, LS, "b") || [];
  const q: JourneyEventWire[] = [];
  let tm: unknown;

  // At most 20 batches are kept; the oldest go first.
  const keep = () => {
    B.splice(0, B.length - 20);
    save(w, LS, "b", B);
  };

  const done = (b: Batch) => {
    B.splice(B.indexOf(b) >>> 0, 1); // -1 (already dropped) becomes 2^32 - 1: no-op
    keep();
  };

  const retry = (b: Batch, ms: number) => {
    b.n++;
    b.t = now() + ms;
    keep();
    st(pump, Math.min(ms, 1e9)); // timers overflow past 2^31 ms
  };

  const answer = (b: Batch, s: number, ra?: string | null) => {
    // 2xx: delivered; 4xx other than 408/429: the batch can never succeed, drop it.
    s && (s < 300 || (s < 500 && s != 408 && s != 429)) ? done(b) : retry(b, +ra! * 1e3 || Math.min(1e3 * 2 ** b.n, 3e5));
  };

  const pump = () => {
    for (const b of B)
      if (b.t <= now()) {
        b.t = 1 / 0;
        w.fetch(url, {
          method: "POST",
          keepalive: true,
          headers: { "Content-Type": "application/json", "X-API-Key": key, "X-Idempotency-Key": b.k },
          body: JSON.stringify({ events: b.e }),
        }).then(
          (r) => answer(b, r.status, r.headers.get("Retry-After")),
          () => answer(b, 0),
        );
      }
  };

  // Cut the queue into batches of at most 100 events and 60,000 bytes of UTF-8 each.
  const flush = () => {
    tm = 0;
    while (q.length) {
      let n = 0;
      let s = 0;
      while (n < q.length && n < 100 && (s += new Blob([JSON.stringify(q[n])]).size) < 6e4) n++;
      B.push({ k: uuid(), e: q.splice(0, n || 1), n: 0, t: 0 });
    }
    keep();
    pump();
  };

  // Batches left by an earlier page load go out with the first flush once their backoff is over.
  return {
    add(e) {
      q.push(e);
      q.length < 100 ? tm || (tm = st(flush, delay)) : flush();
    },
    flush,
  };
}
