// Delivery: batching, flush timing, idempotency keys, retries with backoff and Retry-After,
// dropping on client errors, and persistence of unsent batches across page loads.
import { afterEach, describe, expect, test } from "bun:test";
import { closeWindows, makeEnv, readBody, reload, sent, setHidden, start } from "./helpers";

afterEach(closeWindows);

const keys = (env: ReturnType<typeof makeEnv>) => env.calls.map((c) => c.key);
const stored = (env: ReturnType<typeof makeEnv>) => JSON.parse(env.win.localStorage.getItem("svc_b") || "[]");

describe("batching", () => {
  test("events wait for the flush delay and go out together", async () => {
    const env = makeEnv();
    const t = start(env);
    t.track("a");
    await env.clock.advance(500);
    t.track("b");
    await env.clock.advance(499);
    expect(env.calls).toHaveLength(0);
    await env.clock.advance(1);
    expect(env.calls).toHaveLength(1);
    expect(env.calls[0].events.map((e) => e.event_name ?? e.event_type)).toEqual(["page_view", "a", "b"]);
  });

  test("the flush delay is configurable", async () => {
    const env = makeEnv();
    start(env, { flushDelay: 5000 });
    await env.clock.advance(4999);
    expect(env.calls).toHaveLength(0);
    await env.clock.advance(1);
    expect(env.calls).toHaveLength(1);
  });

  test("a batch holds at most 100 events; the 100th event flushes at once", async () => {
    const env = makeEnv();
    const t = start(env);
    for (let i = 0; i < 99; i++) t.track("e" + i); // + page_view = 100
    await env.clock.advance(0);
    expect(env.calls.map((c) => c.events.length)).toEqual([100]);
    for (let i = 0; i < 150; i++) t.track("f" + i);
    await env.clock.advance(1000);
    expect(env.calls.map((c) => c.events.length)).toEqual([100, 100, 50]);
    expect(new Set(keys(env)).size).toBe(3);
    expect(sent(env)).toHaveLength(250);
  });

  test("large events are split so that a keepalive body stays far below 64 KB", async () => {
    const env = makeEnv();
    const t = start(env);
    const big = "ü€".repeat(1000); // 5 bytes of UTF-8 per pair
    for (let i = 0; i < 60; i++) t.track("big", { big });
    await env.clock.advance(1000);
    expect(env.calls.length).toBeGreaterThan(1);
    for (const c of env.calls) expect(new Blob([String(c.init.body)]).size).toBeLessThan(61_000);
    expect(sent(env)).toHaveLength(61);
  });

  test("hiding the page flushes at once", async () => {
    const env = makeEnv();
    const t = start(env);
    t.track("before-hide");
    setHidden(env, true);
    await env.clock.advance(0);
    expect(env.calls).toHaveLength(1);
    expect(env.calls[0].events.map((e) => e.event_name ?? e.event_type)).toEqual(["page_view", "before-hide"]);
  });

  test("pagehide flushes at once", async () => {
    const env = makeEnv();
    start(env);
    env.win.dispatchEvent(new env.win.Event("pagehide"));
    await env.clock.advance(0);
    expect(env.calls).toHaveLength(1);
  });
});

describe("retries", () => {
  test("back off exponentially and reuse the idempotency key", async () => {
    const env = makeEnv();
    env.replies.push(500, "network", 502, 503);
    start(env);
    await env.clock.advance(1000); // attempt 1 at 1 s → 500
    expect(env.clock.pending()).toEqual([1000]);
    await env.clock.advance(1000); // attempt 2 → network error
    expect(env.clock.pending()).toEqual([2000]);
    await env.clock.advance(2000); // attempt 3 → 502
    expect(env.clock.pending()).toEqual([4000]);
    await env.clock.advance(3999);
    expect(env.calls).toHaveLength(3);
    await env.clock.advance(1); // attempt 4 → 503 without Retry-After
    await env.clock.advance(8000); // attempt 5 → 202
    expect(env.calls).toHaveLength(5);
    expect(new Set(keys(env)).size).toBe(1);
    expect(env.calls.every((c) => c.events[0].event_type === "page_view")).toBe(true);
    expect(stored(env)).toEqual([]);
    await env.clock.advance(600_000);
    expect(env.calls).toHaveLength(5);
  });

  test("the backoff is capped at 5 minutes", async () => {
    const env = makeEnv();
    env.replies.push(...Array(12).fill(500));
    start(env);
    await env.clock.advance(1000);
    let last = 0;
    for (let i = 0; i < 11; i++) {
      last = env.clock.pending()[0];
      await env.clock.advance(last);
    }
    expect(last).toBe(300_000);
    expect(env.calls).toHaveLength(12);
  });

  test("Retry-After (seconds) is honoured on 429 and 503", async () => {
    const env = makeEnv();
    env.replies.push({ status: 429, headers: { "Retry-After": "120" } }, { status: 503, headers: { "Retry-After": "7" } });
    start(env);
    await env.clock.advance(1000);
    await env.clock.advance(119_999);
    expect(env.calls).toHaveLength(1);
    await env.clock.advance(1);
    expect(env.calls).toHaveLength(2);
    await env.clock.advance(6_999);
    expect(env.calls).toHaveLength(2);
    await env.clock.advance(1);
    expect(env.calls).toHaveLength(3);
    expect(new Set(keys(env)).size).toBe(1);
  });

  test("408 is retried", async () => {
    const env = makeEnv();
    env.replies.push(408);
    start(env);
    await env.clock.advance(2000);
    expect(env.calls).toHaveLength(2);
  });

  test("400 (and other 4xx) drop the batch: no retry, nothing kept", async () => {
    for (const status of [400, 401, 403, 413]) {
      const env = makeEnv();
      env.replies.push(status);
      start(env);
      await env.clock.advance(1000);
      expect(env.calls).toHaveLength(1);
      expect(stored(env)).toEqual([]);
      await env.clock.advance(3_600_000);
      expect(env.calls).toHaveLength(1);
      expect(env.clock.pending()).toEqual([]);
    }
  });

  test("a month-long Retry-After keeps the batch without a timer overflow", async () => {
    const env = makeEnv();
    env.replies.push({ status: 429, headers: { "Retry-After": String(30 * 86400) } });
    start(env);
    await env.clock.advance(1000);
    expect(env.clock.pending()).toEqual([1e9]);
    await env.clock.advance(1e9); // the capped timer fires early: the batch is not due yet
    expect(env.calls).toHaveLength(1);
    expect(stored(env)).toHaveLength(1);
  });
});

describe("persistence", () => {
  test("unsent batches survive a reload and are resent with their original key", async () => {
    const env = makeEnv();
    env.replies.push("network");
    const t = start(env);
    t.track("checkout");
    await env.clock.advance(1000);
    expect(env.calls).toHaveLength(1);
    const key = keys(env)[0];
    expect(stored(env)).toHaveLength(1);

    // the visitor leaves before the retry
    const next = reload(env, "https://shop.example/thanks");
    start(next);
    await next.clock.advance(1000);
    expect(next.calls.length).toBeGreaterThanOrEqual(1);
    const resent = next.calls.find((c) => c.key === key)!;
    expect(resent.events.map((e) => e.event_name ?? e.event_type)).toEqual(["page_view", "checkout"]);
    expect(
      sent(next)
        .filter((e) => e.event_type === "page_view")
        .map((e) => new URL(e.page_url).pathname),
    ).toEqual(["/landing", "/thanks"]);
    expect(stored(next)).toEqual([]);
  });

  test("a batch in flight when the page died is resent on the next load", async () => {
    const env = makeEnv();
    (env.win as any).fetch = (_u: string, init: RequestInit) => {
      env.calls.push({ url: _u, init, headers: init.headers as any, ...readBody(init.body) });
      return new Promise(() => {}); // never answers
    };
    start(env);
    setHidden(env, true);
    await env.clock.advance(0);
    const key = keys(env)[0];
    const next = reload(env);
    start(next);
    await next.clock.advance(1000);
    expect(next.calls[0].key).toBe(key);
  });

  test("a reload does not resend a batch whose backoff has not ended", async () => {
    const env = makeEnv();
    env.replies.push({ status: 429, headers: { "Retry-After": "600" } });
    start(env);
    await env.clock.advance(1000);
    const key = keys(env)[0];
    const next = reload(env);
    start(next);
    await next.clock.advance(1000);
    expect(next.calls.map((c) => c.key)).not.toContain(key);
    next.calls.length = 0;
    await next.clock.advance(600_000); // a later flush picks it up once due
    start(next).track("late");
    await next.clock.advance(1000);
    expect(next.calls.map((c) => c.key)).toContain(key);
  });

  test("at most 20 batches are kept; the oldest are dropped", async () => {
    const env = makeEnv();
    const t = start(env);
    for (let i = 0; i < 25; i++) env.replies.push("network");
    await env.clock.advance(1000);
    for (let i = 1; i < 25; i++) {
      t.track("n" + i);
      t.flush();
    }
    await env.clock.advance(0);
    const kept = stored(env);
    expect(kept).toHaveLength(20);
    const firstName = (b: any) => readBody(JSON.stringify([b.k, ...b.e])).events[0].event_name;
    expect(kept.map(firstName)).toEqual(Array.from({ length: 20 }, (_, i) => "n" + (i + 5)));
  });
});

describe("when the browser refuses", () => {
  test("storage that throws (blocked, full) loses persistence, not events", async () => {
    const env = makeEnv(`https://shop.example/?svc_ref=6f1c2a4e-8b1d-4c3e-9a55-0d7e2b9c1f10.click-1`);
    for (const s of ["localStorage", "sessionStorage"])
      Object.defineProperty(env.win, s, {
        get() {
          throw new DOMException("blocked", "SecurityError");
        },
        configurable: true,
      });
    env.replies.push(500);
    const t = start(env);
    t.track("x");
    await env.clock.advance(1000);
    await env.clock.advance(1000); // the retry, from memory
    expect(env.calls).toHaveLength(2);
    expect(sent(env).map((e) => [e.event_name ?? e.event_type, e.visitor_id])).toEqual([
      ["page_view", "click-1"],
      ["x", "click-1"],
      ["page_view", "click-1"],
      ["x", "click-1"],
    ]);
    expect(env.win.location.search).toBe("");
  });

  test("without crypto.randomUUID (plain http), keys and ids are still distinct random strings", async () => {
    const orig = crypto.randomUUID;
    (crypto as any).randomUUID = undefined;
    try {
      const env = makeEnv("http://shop.example/");
      const t = start(env);
      await env.clock.advance(1000);
      t.track("y");
      t.flush();
      await env.clock.advance(0);
      const ids = [...keys(env), sent(env)[0].visitor_id, sent(env)[0].session_id];
      for (const id of ids) expect(id).toMatch(/^0\.\d+$/);
      expect(new Set(ids).size).toBe(4);
    } finally {
      crypto.randomUUID = orig;
    }
  });

  test("showing the page again posts what was gathered while it was hidden", async () => {
    const env = makeEnv();
    const t = start(env);
    setHidden(env, true);
    await env.clock.advance(0);
    t.track("while-hidden");
    setHidden(env, false);
    await env.clock.advance(0);
    expect(env.calls.map((c) => c.events.map((e) => e.event_name ?? e.event_type))).toEqual([["page_view"], ["while-hidden"]]);
  });
});
