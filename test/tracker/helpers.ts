// Test kit for the tracker: a happy-dom window, a fake clock (injected as now/setTimeout) and a
// stubbed fetch that records requests and answers with scripted responses. The tracker is a
// browser script, so the network is stubbed here; no server of ours is involved, but each body (the
// compact form) is read by the server's own expansion into the object form, which the tests check.
import { Window } from "happy-dom";
import { createTracker, type TrackerOptions } from "../../tracker/src/tracker";
import type { JourneyEventWire } from "../../tracker/src/protocol";
import { expandCompactBatch } from "../../server/journey/compact";

export const LINK = "6f1c2a4e-8b1d-4c3e-9a55-0d7e2b9c1f10";
export const CLICK = "b0e7d6c5-4a3b-4c2d-8e1f-123456789abc";
export const KEY = "svc_test_key";
export const API = "https://sho.rt/public-api/v1";
export const ENDPOINT = API + "/journey/events";
export const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);

/** Lets promise chains (fetch → response handling) run to completion. */
export const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
};

export function fakeClock(start = T0) {
  let t = start;
  let seq = 0;
  const timers: { at: number; id: number; f: () => void }[] = [];
  return {
    now: () => t,
    setTimeout: (f: () => void, ms: number) => {
      timers.push({ at: t + Math.max(0, ms || 0), id: ++seq, f });
      return seq;
    },
    /** Moves time forward by ms, running due timers in order and settling promises after each. */
    async advance(ms: number) {
      const end = t + ms;
      await settle();
      for (;;) {
        timers.sort((a, b) => a.at - b.at || a.id - b.id);
        const next = timers[0];
        if (!next || next.at > end) break;
        timers.shift();
        t = next.at;
        next.f();
        await settle();
      }
      t = end;
    },
    /** Delays of the timers still pending, relative to now. */
    pending: () => timers.map((x) => x.at - t).sort((a, b) => a - b),
  };
}
export type Clock = ReturnType<typeof fakeClock>;

export type Reply = number | "network" | { status: number; headers?: Record<string, string> };

export interface Call {
  url: string;
  init: RequestInit & { keepalive?: boolean };
  headers: Record<string, string>;
  /** The batch's idempotency key (the first element of the compact body). */
  key: string;
  events: JourneyEventWire[];
}

/** A posted body as the server reads it: its idempotency key and its events in the object form. */
export function readBody(body: unknown): { key: string; events: JourneyEventWire[] } {
  const batch = expandCompactBatch(JSON.parse(String(body)), null);
  return { key: batch.idempotencyKey!, events: batch.body.events as unknown as JourneyEventWire[] };
}

export interface Env {
  win: Window;
  w: globalThis.Window; // the same window, typed as the DOM one
  clock: Clock;
  calls: Call[];
  /** Scripted answers, used in order; 202 once they run out. */
  replies: Reply[];
}

const windows: Window[] = [];

export function makeEnv(url = "https://shop.example/landing", clock = fakeClock()): Env {
  const win = new Window({ url, width: 1280, height: 1000 });
  windows.push(win);
  const env: Env = { win, w: win as unknown as globalThis.Window, clock, calls: [], replies: [] };
  (win as any).fetch = async (u: string, init: Call["init"]) => {
    env.calls.push({ url: String(u), init, headers: init.headers as Record<string, string>, ...readBody(init.body) });
    const r = env.replies.shift() ?? 202;
    if (r === "network") throw new TypeError("Failed to fetch");
    const { status, headers } = typeof r === "number" ? { status: r, headers: {} } : r;
    return new Response(null, { status, headers });
  };
  return env;
}

/** A new page load in the same browser tab: storage carries over, listeners do not. */
export function reload(prev: Env, url = prev.win.location.href): Env {
  const env = makeEnv(url, prev.clock);
  for (const s of ["localStorage", "sessionStorage"] as const)
    for (let i = 0; i < prev.win[s].length; i++) {
      const k = prev.win[s].key(i)!;
      env.win[s].setItem(k, prev.win[s].getItem(k)!);
    }
  env.replies = prev.replies;
  return env;
}

export async function closeWindows() {
  for (const w of windows.splice(0)) await w.happyDOM.close();
}

export function start(env: Env, opts: Partial<TrackerOptions> = {}) {
  return createTracker({
    key: KEY,
    api: API,
    linkId: LINK,
    window: env.w,
    now: env.clock.now,
    setTimeout: env.clock.setTimeout,
    ...opts,
  });
}

export const sent = (env: Env) => env.calls.flatMap((c) => c.events);
export const ofType = (env: Env, t: JourneyEventWire["event_type"]) => sent(env).filter((e) => e.event_type === t);

export function setHidden(env: Env, hidden: boolean) {
  const d = env.win.document;
  Object.defineProperty(d, "hidden", { value: hidden, configurable: true });
  Object.defineProperty(d, "visibilityState", { value: hidden ? "hidden" : "visible", configurable: true });
  d.dispatchEvent(new env.win.Event("visibilitychange"));
}

/** Scrolls a page of `height` px in a 1000 px viewport so that its top is at y. */
export function scrollTo(env: Env, y: number, height = 4000) {
  const win = env.win;
  Object.defineProperty(win, "innerHeight", { value: 1000, configurable: true });
  Object.defineProperty(win.document.documentElement, "scrollHeight", { value: height, configurable: true });
  Object.defineProperty(win, "scrollY", { value: y, configurable: true });
  win.dispatchEvent(new win.Event("scroll"));
}

export function setScreenWidth(env: Env, width: number) {
  Object.defineProperty(env.win.screen, "width", { value: width, configurable: true });
}

export function setNavigator(env: Env, props: Record<string, unknown>) {
  for (const [k, v] of Object.entries(props)) Object.defineProperty(env.win.navigator, k, { value: v, configurable: true });
}
