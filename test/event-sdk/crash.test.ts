// The event SDK while our server (a child process, embedded stores) is killed with SIGKILL and
// started again: every tracked event is stored exactly once. First the worst moment, made to happen:
// the server has stored a batch and dies before its 202 leaves, so the app retries the batch under
// the same key against a server that restarted. Then random kills while the app keeps tracking.
import { afterAll, expect, test } from "bun:test";
import { createEventClient } from "../../event-sdk/src/index";
import { countBySeq, range, readEvents } from "./helpers";
import { startProxy, type Proxy } from "./proxy";
import { api, provision, serverProcess } from "../helpers/server-process";

const server = serverProcess();
let proxy: Proxy | null = null;
afterAll(async () => {
  await proxy?.close();
  server.remove();
});

const call = (path: string, init: { key?: string } = {}) => api(server.url, path, init);

/** What the server stored for the link, after a clean stop (which drains the spool) and a restart. */
async function storedCounts(key: string, linkId: string) {
  await server.stop();
  await server.start();
  return countBySeq(await readEvents(call, key, linkId));
}

test("the server dies after storing a batch and before answering: the retry after its restart stores nothing twice", async () => {
  await server.start();
  const { key, linkId } = await provision(server.url);
  let restarted: Promise<void> = Promise.resolve();
  proxy = await startProxy(
    () => server.url,
    ({ n }) =>
      n === 1
        ? {
            dropAnswer: true,
            then: async () => {
              await server.kill9();
              restarted = server.start();
            },
          }
        : { forward: true },
  );
  const client = await createEventClient({ apiKey: key, baseUrl: proxy.url, linkId, retry: { baseMs: 100, maxMs: 500 } });
  for (const seq of range(1, 20)) client.track("tick", { seq });
  await client.flush();
  await restarted;
  const stats = await client.shutdown({ timeoutMs: 60_000 });
  expect(stats.queued).toBe(0);

  const first = proxy.requests[0];
  expect(first).toMatchObject({ serverStatus: 202, outcome: "dropped" });
  const answered = proxy.requests.find((r) => r.outcome === 202)!;
  expect(answered.key).toBe(first.key!); // the same batch, the same key
  const counts = await storedCounts(key, linkId);
  expect([...counts.keys()].sort((a, b) => a - b)).toEqual(range(1, 20));
  expect([...counts.values()].filter((n) => n !== 1)).toEqual([]);
}, 180_000);

test("killed three times at random moments while the app keeps tracking: every event is stored exactly once", async () => {
  const { key, linkId } = await provision(server.url);
  await proxy?.close();
  proxy = await startProxy(() => server.url);
  const client = await createEventClient({
    apiKey: key,
    baseUrl: proxy.url,
    linkId,
    batchSize: 25,
    flushIntervalMs: 20,
    maxQueuedEvents: 1_000_000,
    retry: { baseMs: 50, maxMs: 400 },
  });
  let seq = 0;
  let tracking = true;
  const app = (async () => {
    while (tracking) {
      await client.track("tick", { seq: ++seq });
      await Bun.sleep(1);
    }
  })();

  for (let round = 0; round < 3; round++) {
    await Bun.sleep(700 + Math.random() * 900); // tracking goes on all along: the kill lands mid-stream
    await server.kill9();
    await server.start();
  }
  tracking = false;
  await app;
  const stats = await client.shutdown({ timeoutMs: 120_000 });
  expect(stats).toMatchObject({ queued: 0, dropped: 0 });

  const lost = proxy.requests.filter((r) => r.outcome === "dropped").length;
  const counts = await storedCounts(key, linkId);
  const twice = [...counts].filter(([, n]) => n > 1).map(([s]) => s);
  const missing = range(1, seq).filter((s) => !counts.has(s));
  console.log(`sdk crash test: ${seq} events tracked, ${proxy.requests.length} requests, ${lost} without an answer`);
  expect(twice).toEqual([]);
  expect(missing).toEqual([]);
  expect(counts.size).toBe(seq);
  expect(lost).toBeGreaterThan(0); // the kills did cut requests off
}, 300_000);
