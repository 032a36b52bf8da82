// The SDK's core inside a JavaScript context that has only what React Native's engine offers (fetch,
// timers, AbortController): no process, Buffer, require, crypto, TextEncoder or URL. It delivers to a
// real server of ours, through a recording proxy.
import { afterAll, beforeAll, expect, test } from "bun:test";
import vm from "node:vm";
import { bundleCore } from "../../event-sdk/build";
import { startProxy, type Proxy } from "./proxy";
import { accountWithLink, countBySeq, range, startSdkServer, storedEvents, type SdkServer } from "./helpers";

let s: SdkServer;
let proxy: Proxy;
beforeAll(async () => {
  s = await startSdkServer();
  proxy = await startProxy(() => s.url);
}, 120_000);
afterAll(async () => {
  await proxy.close();
  await s.stop();
});

test("in a context with React Native's globals only, the core delivers events to our server", async () => {
  const acc = await accountWithLink(s.t);
  const { text } = await bundleCore({ write: false, format: "iife", globalName: "SvcEvents" });
  const logs: unknown[] = [];
  const context = vm.createContext({
    fetch: (url: string, init: RequestInit) => fetch(url, init),
    setTimeout,
    clearTimeout,
    AbortController,
    console: { log: (...a: unknown[]) => logs.push(a), warn: (...a: unknown[]) => logs.push(a), error: (...a: unknown[]) => logs.push(a) },
    config: { apiKey: acc.key, baseUrl: proxy.url, linkId: acc.linkId, batchSize: 10 },
  });
  const missing = vm.runInContext(
    `["process", "Buffer", "require", "crypto", "TextEncoder", "URL", "Blob"].filter((name) => typeof globalThis[name] !== "undefined")`,
    context,
  );
  expect(missing).toEqual([]);
  vm.runInContext(text, context);
  const stats = await vm.runInContext(
    `(async () => {
      const client = await SvcEvents.createEventClient(config);
      for (let seq = 1; seq <= 25; seq++) client.track("tick", { seq });
      await client.screen("Home");
      await client.conversion("purchase", { revenue_cents: 100, currency: "EUR" });
      return client.shutdown({ timeoutMs: 10000 });
    })()`,
    context,
  );
  expect(stats).toMatchObject({ queued: 0, delivered: 27, dropped: 0 });
  expect(logs).toEqual([]);
  // Ids came from Math.random (no crypto here) and are still version 4 UUIDs.
  const seen = proxy.requests.slice(-3);
  for (const r of seen) expect(r.key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  const events = await storedEvents(s.t, acc.key, acc.linkId);
  expect(events).toHaveLength(27);
  expect(countBySeq(events.filter((e) => e.event_name === "tick"))).toEqual(new Map(range(1, 25).map((n) => [n, 1])));
  expect(events[0].visitor_id).toMatch(/^[0-9a-f-]{36}$/);
});
