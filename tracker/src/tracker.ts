// createTracker: the svc_ref attribution hand-off, visitor and session ids, page views (including
// SPA navigations), scroll depth, visible time on page, custom events and conversions, and their
// delivery (batches, retries, persistence). One closure on purpose: its parts share the window, the
// clock and the storage helper, and each module boundary costs t.js bytes (the sender in a module of
// its own was 26 B more gzipped). createTracker has no side effects until called; index.ts calls it.
import type { CompactEvent, CompactEventType, JourneyPropertyValue } from "./protocol";

// tracker/build.ts defines SVC_SCRIPT for t.js only (not for t.esm.js). A <script> tag passes none
// of the options that are there for tests and module users (window, now, setTimeout, flushDelay), so
// t.js is built without them; the sources as they are (unit tests) take every option.
declare const SVC_SCRIPT: boolean | undefined;

export type Properties = Record<string, JourneyPropertyValue>;

export interface ConversionOptions {
  revenue_cents?: number;
  currency?: string;
  properties?: Properties;
}

export interface TrackerOptions {
  /** API key (`svc_…`) with the journey:write scope. */
  key: string;
  /** API base ending with the version segment, e.g. `https://sho.rt/public-api/v1`. */
  api: string;
  /** Link to attribute visits to when no `svc_ref` attribution exists. */
  linkId?: string;
  /** Send nothing when Do Not Track or Global Privacy Control is on. */
  respectDnt?: boolean;
  /** Comma-separated path patterns (`*` wildcard) of pages that send nothing. */
  exclude?: string;
  /** Milliseconds to gather events before a batch is posted (default 1000). */
  flushDelay?: number;
  window?: Window;
  now?: () => number;
  setTimeout?: (f: () => void, ms: number) => unknown;
}

export interface Tracker {
  track(name: string, properties?: Properties): void;
  conversion(name: string, options?: ConversionOptions): void;
  /** Post everything gathered so far now. */
  flush(): void;
}

// A batch as kept in localStorage (svc_b). k: idempotency key, e: events (0 once delivered or
// dropped), n: failed attempts, t: earliest next attempt (ms; Infinity while in flight, which JSON
// turns into null, so that a batch in flight when the page died is resent on the next load).
interface Batch {
  k: string;
  e: CompactEvent[] | 0;
  n: number;
  t: number;
}

// [page_url, page_title], or false on an excluded page
type Page = [string, string] | false;

export function createTracker(o: TrackerOptions): Tracker {
  const w = (typeof SVC_SCRIPT == "undefined" && o.window) || window;
  const D = w.document;
  const loc = w.location;
  const H = w.history;
  const N = w.navigator as Navigator & { globalPrivacyControl?: boolean };
  const now = (typeof SVC_SCRIPT == "undefined" && o.now) || Date.now;
  // Idempotency keys, session ids, the visitor id of the data-link-id fallback. crypto.randomUUID
  // exists only in secure contexts (https, localhost).
  const uuid = (): string => crypto.randomUUID?.() || "" + Math.random() + now();
  // svc_<k> in localStorage (session 0) or sessionStorage (1): read without v, written with v (and v
  // returned, so that a value is stored and used in one expression). Storage can be missing or refuse
  // (private modes, quotas): then reads give undefined and writes are skipped. Storage items are also
  // its properties: s.svc_a is s.getItem("svc_a"), undefined when absent.
  const st = (session: 0 | 1, k: string, v?: any): any => {
    try {
      const s: any = w[session ? "sessionStorage" : "localStorage"];
      k = "svc_" + k;
      v == null ? (v = JSON.parse(s[k])) : (s[k] = JSON.stringify(v));
    } catch {}
    return v;
  };

  // Attribution [link_id, visitor_id]: none (nothing is sent or stored) under DNT or GPC when asked.
  let a: [string, string] | undefined;
  if (!(o.respectDnt && (N.doNotTrack == (1 as any) || N.globalPrivacyControl))) {
    // Hand-off: the redirect appends svc_ref=<link_id>.<click_id>; the click id may hold dots.
    // ref[2] and ref[3] are the link and click ids when the value is well-formed.
    const ref = loc.search.match(/[?&]svc_ref=(([^&.]+)\.([^&]*)|[^&]*)/);
    if (ref) {
      if (ref[2]) a = st(1, "a", st(0, "a", ref.slice(2)));
      // Cut the parameter out of the string so the other parameters keep their exact encoding;
      // before history is patched, so this is not a navigation.
      try {
        H.replaceState(H.state, "", loc.pathname + loc.search.replace(ref[0], "").replace(/^&/, "?") + loc.hash);
      } catch {}
    }
    a = a || st(1, "a") || st(0, "a") || (o.linkId && [o.linkId, st(0, "v") || st(0, "v", uuid())]);
  }

  // Delivery: S(event) queues an event, posted after the flush delay or at once as the 100th;
  // S() posts the queue now. Batches of at most 60,000 bytes of UTF-8 (the browser limits keepalive
  // bodies to 64 KB) go out as keepalive POSTs in the compact form, [idempotency key, ...events]: one
  // key per batch, reused by its retries; backoff honours Retry-After; unsent batches are kept in
  // localStorage across page loads. No Content-Type: the body goes as text/plain, which the server
  // parses as JSON (the X-API-Key header makes the request preflighted anyway).
  const later = (typeof SVC_SCRIPT == "undefined" && o.setTimeout) || setTimeout;
  let B: Batch[] = st(0, "b") || [];
  const q: CompactEvent[] = [];
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
          headers: { "X-API-Key": o.key },
          body: JSON.stringify([b.k, ...(b.e as CompactEvent[])]),
        })
          .catch(Object) // a network error goes on as the error itself: no status, no headers
          .then((r: Response) => {
            // A status from 100 to 499 but 408 and 429 ends the batch: 2xx delivered it, and with any
            // other 4xx it can never succeed. 408, 429, 5xx and network errors (no status) retry.
            if (/^[1-4](?!08|29)/.test(r.status as any)) b.e = 0;
            else {
              let ms = Math.min(1e3 * 2 ** b.n++, 3e5);
              b.t = now() + (ms = +r.headers?.get("Retry-After")! * 1e3 || ms);
              later(pump, Math.min(ms, 1e9)); // timers overflow past 2^31 ms
            }
            keep();
          });
      }
  };

  const S = (e?: CompactEvent): void => {
    if (e && q.push(e) < 100) tm ||= later(S, (typeof SVC_SCRIPT == "undefined" ? o.flushDelay : undefined) ?? 1e3);
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

  // One pattern for the list: `*` matches anything, `,` separates, blanks go, other symbols are
  // literal. An empty list gives ^()$, which no pathname matches.
  const ex = RegExp("^(" + (o.exclude || "").replace(/\W/g, (c) => (c == "*" ? ".*" : c == "," ? "|" : c > " " ? "\\" + c : "")) + ")$");
  const page = (): Page => !ex.test(loc.pathname) && [loc.href, D.title];

  // An event in the compact form (CompactEvent): its type's own fields x follow the common ones.
  // The session (svc_s: [session_id, last event time]) ends after 30 minutes without an event,
  // across tabs. The device type is 0 mobile (screen under 768 px wide), 1 tablet (under 1024),
  // 2 desktop. Nothing is sent without an attribution, nor from an excluded page (p false).
  const ev = (t: CompactEventType, p: Page, ...x: unknown[]) => {
    const sw = w.screen.width;
    const n = now();
    const s = st(0, "s");
    a && p && S([t, ...a, st(0, "s", [!s || n - s[1] > 18e5 ? uuid() : s[0], n])[0], ...p, ((sw > 767) as any) + (sw > 1023), n, ...x]);
  };

  // Page state: P the current page, at the URL cur; sd scroll thresholds sent;
  // vt visible milliseconds not yet reported; vs start of the visible stretch (0: hidden).
  let P: Page;
  let cur: string;
  let sd = 0;
  let vt = 0;
  let vs = 0;
  // Stops or restarts the visible clock as the page is hidden or shown; time_on_page carries the
  // visible seconds since the last report for this page view.
  const report = () => {
    const t = now();
    vt += vs && t - vs;
    vs = D.hidden ? 0 : t;
    (vt = Math.round(vt / 1e3)) && ev(2, P, vt);
    vt = 0;
  };
  // A page view on load and whenever the URL without the hash changes (SPA navigation).
  const nav = () => {
    const u = loc.href.split("#")[0];
    if (u != cur) {
      report();
      sd = 0;
      cur = u;
      ev(0, (P = page()), { language: N.language });
    }
  };
  // Hidden or left: report the visible time and post at once (shown again: the clock restarts).
  const hide = () => {
    report();
    S();
  };

  if (a) {
    for (const m of ["pushState", "replaceState"] as const) {
      const f = H[m];
      H[m] = function (this: History, ...x: Parameters<History["pushState"]>) {
        f.apply(this, x);
        nav();
      };
    }
    w.addEventListener("popstate", nav);
    w.addEventListener("pagehide", hide);
    D.addEventListener("visibilitychange", hide);
    w.addEventListener("scroll", () => {
      const p = ((w.scrollY + w.innerHeight + 1) / D.documentElement.scrollHeight) * 4; // in quarters
      while (sd < 4 && p >= sd + 1) ev(1, page(), ++sd * 25);
    });
    nav();
  }

  return {
    track: (n, properties) => ev(3, page(), n, properties),
    conversion: (n, c) =>
      // The API takes an integer; without revenue_cents, NaN goes as null (absent).
      ev(4, page(), n, c?.properties, Math.round(c?.revenue_cents!), c?.currency?.toUpperCase(), n),
    flush: () => a && S(),
  };
}
