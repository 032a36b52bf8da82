// Owns what the tracker observes: the svc_ref attribution hand-off, visitor and session ids,
// page views (including SPA navigations), scroll depth, visible time on page, custom events
// and conversions. createTracker has no side effects until called; index.ts calls it.
import type { JourneyEventType, JourneyEventWire, JourneyPropertyValue } from "./protocol";
import { createSender } from "./send";
import { store, uuid } from "./store";

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

// [page_url, page_title, excluded]
type Page = [string, string, boolean];

export function createTracker(o: TrackerOptions): Tracker {
  const w = o.window || window;
  const D = w.document;
  const loc = w.location;
  const H = w.history;
  const N = w.navigator as Navigator & { globalPrivacyControl?: boolean };
  const now = o.now || Date.now;
  const st = store(w);
  const on = (t: EventTarget, e: string, f: () => void) => t.addEventListener(e, f);

  // Attribution [link_id, visitor_id]: none (nothing is sent or stored) under DNT or GPC when asked.
  let a: string[] | undefined;
  if (!(o.respectDnt && (N.doNotTrack == "1" || N.globalPrivacyControl))) {
    // Hand-off: the redirect appends svc_ref=<link_id>.<click_id>.
    const ref = new URLSearchParams(loc.search).get("svc_ref");
    if (ref != null) {
      const i = ref.indexOf(".");
      if (i > 0) a = st(1, "a", st(0, "a", [ref.slice(0, i), ref.slice(i + 1)]));
      // Cut the parameter out of the string so the other parameters keep their exact encoding.
      const q = loc.search.replace(/([?&])svc_ref=[^&]*(&|$)/, (_, s, e) => e && s);
      try {
        H.replaceState(H.state, "", loc.pathname + q + loc.hash); // before history is patched: not a navigation
      } catch {}
    }
    a = a || st(1, "a") || st(0, "a") || (o.linkId && [o.linkId, st(0, "v") || st(0, "v", uuid())]);
  }
  const S = createSender(o, w, now, st);

  // An empty pattern gives ^$, which no pathname matches.
  const ex = (o.exclude || "").split(",").map((p) => RegExp("^" + p.trim().replace(/\W/g, (c) => (c == "*" ? ".*" : "\\" + c)) + "$"));
  const page = (): Page => [loc.href, D.title, ex.some((r) => r.test(loc.pathname))];
  const here = () => loc.href.split("#")[0];

  // The session ends after 30 minutes without an event, across tabs.
  const sid = (): string => {
    const t = now();
    let s = st(0, "s");
    if (!s || t - s[1] > 18e5) s = [uuid()];
    s[1] = t;
    return st(0, "s", s)[0];
  };

  // Nothing is sent without an attribution, nor from an excluded page.
  const ev = (t: JourneyEventType, x: Partial<JourneyEventWire>, p = page()) => {
    const sw = w.screen.width;
    a &&
      !p[2] &&
      S.add({
        link_id: a[0],
        visitor_id: a[1],
        session_id: sid(),
        event_type: t,
        page_url: p[0],
        page_title: p[1],
        device_type: sw < 768 ? "mobile" : sw < 1024 ? "tablet" : "desktop",
        timestamp: new Date(now()).toISOString(),
        ...x,
      });
  };

  // Page state: P the current page, at the URL cur; sd scroll thresholds sent;
  // vt visible milliseconds not yet reported; vs start of the visible stretch (0: hidden).
  let P: Page;
  let cur: string;
  let sd = 0;
  let vt = 0;
  let vs = 0;
  const tick = () => {
    const t = now();
    if (vs) vt += t - vs;
    vs = D.hidden ? 0 : t;
  };
  // time_on_page carries the visible seconds since the last report for this page view.
  const report = () => {
    tick();
    const s = Math.round(vt / 1e3);
    vt = 0;
    s && ev("time_on_page", { time_on_page: s }, P);
  };
  const view = () => {
    tick();
    vt = sd = 0;
    cur = here();
    ev("page_view", { properties: { language: N.language } }, (P = page()));
  };
  const nav = () => {
    if (here() != cur) {
      report();
      view();
    }
  };
  const hide = () => {
    report();
    S.flush();
  };

  if (a) {
    for (const m of ["pushState", "replaceState"] as const) {
      const f = H[m];
      H[m] = function (this: History, ...x: Parameters<History["pushState"]>) {
        f.apply(this, x);
        nav();
      };
    }
    on(w, "popstate", nav);
    on(w, "pagehide", hide);
    on(D, "visibilitychange", () => (D.hidden ? hide() : tick()));
    on(w, "scroll", () => {
      const p = ((w.scrollY + w.innerHeight + 1) / D.documentElement.scrollHeight) * 100;
      while (sd < 4 && p >= (sd + 1) * 25) ev("scroll_depth", { scroll_percent: ++sd * 25 });
    });
    view();
  }

  return {
    track: (n, properties) => ev("custom", { event_name: n, properties }),
    conversion: (n, c = {}) =>
      ev("conversion", {
        event_name: n,
        conversion_name: n,
        revenue_cents: c.revenue_cents && Math.round(c.revenue_cents), // the API takes an integer
        currency: c.currency && c.currency.toUpperCase(),
        properties: c.properties,
      }),
    flush: () => a && S.flush(),
  };
}
