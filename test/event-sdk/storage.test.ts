// The SDK's persistent queue: unsent batches and their idempotency keys survive a restart of the app
// (a kill -9 of an app process with the file storage; a reopened client on AsyncStorage-shaped
// storage), the queue is bounded with the oldest events dropped first, and the visitor and session
// ids are kept.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { createEventClient, memoryStorage, type DroppedEvents, type EventStorage } from "../../event-sdk/src/index";
import { fileStorage } from "../../event-sdk/src/file-storage";
import { asyncStorageLike } from "./async-storage-like";
import { useTempDirs } from "../helpers/temp-dirs";
import { startProxy, type Proxy, type Rule } from "./proxy";
import { accountWithLink, countBySeq, range, startSdkServer, storedEvents, until, type SdkServer } from "./helpers";

let s: SdkServer;
const tempDir = useTempDirs("svc-sdk-store-");
const proxies: Proxy[] = [];
beforeAll(async () => {
  s = await startSdkServer();
}, 120_000);
afterAll(async () => {
  for (const p of proxies) await p.close();
  await s.stop();
});
async function proxy(rule?: Rule) {
  const p = await startProxy(() => s.url, rule);
  proxies.push(p);
  return p;
}

/** Spawns the app fixture; resolves its lines as they come. */
function app(args: string[]) {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "fixtures/app.ts"), ...args], {
    env: { PATH: "/usr/local/bin:/usr/bin:/bin", TZ: "UTC" },
    stdout: "pipe",
    stderr: "inherit",
  });
  const lines: string[] = [];
  const done = (async () => {
    const decoder = new TextDecoder();
    let rest = "";
    for await (const chunk of child.stdout) {
      rest += decoder.decode(chunk);
      const parts = rest.split("\n");
      rest = parts.pop()!;
      lines.push(...parts);
    }
  })();
  return { child, lines, done };
}

describe("file storage", () => {
  test("an app killed with SIGKILL mid-send: after its restart every acknowledged event is stored once, its batches under their first keys", async () => {
    const acc = await accountWithLink(s.t);
    const dir = tempDir();
    let first: ReturnType<typeof app> | null = null;
    // The first request reaches the server; the app is killed before it hears the answer.
    const p = await proxy(({ n }) => (n === 1 ? { dropAnswer: true, then: () => void first!.child.kill(9) } : { forward: true }));
    first = app([dir, p.url, acc.key, acc.linkId, "1", "60"]);
    await first.child.exited;
    await first.done;
    const acked = first.lines.filter((l) => l.startsWith("ack ")).map((l) => Number(l.slice(4)));
    expect(p.requests[0]).toMatchObject({ serverStatus: 202, outcome: "dropped" });
    const inDroppedRequest = p.requests[0].events.map((e) => e.properties.seq as number);
    expect(inDroppedRequest.length).toBeGreaterThan(0);
    expect(readdirSync(dir).some((f) => f.includes("batch"))).toBe(true);

    const second = app([dir, p.url, acc.key, acc.linkId, "61", "60"]); // nothing new: just what was left
    await second.child.exited;
    await second.done;
    expect(second.lines).toContain("drained");
    const retried = p.requests.find((r) => r.n > 1 && r.key === p.requests[0].key);
    expect(retried?.outcome).toBe(202); // answered already_processed by the server

    const counts = countBySeq(await storedEvents(s.t, acc.key, acc.linkId));
    for (const seq of [...acked, ...inDroppedRequest]) expect(counts.get(seq)).toBe(1);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
  }, 120_000);
});

describe("AsyncStorage", () => {
  test("a client reopened on the same AsyncStorage sends what the last one left, under the same keys, as the same visitor", async () => {
    const acc = await accountWithLink(s.t);
    let serverUp = false;
    const p = await proxy(() => (serverUp ? { forward: true } : { respond: 503, headers: { "retry-after": "0" } }));
    const storage = asyncStorageLike();
    const options = { apiKey: acc.key, baseUrl: p.url, linkId: acc.linkId, storage, batchSize: 20, retry: { baseMs: 60_000 } };
    const one = await createEventClient(options);
    for (const seq of range(1, 45)) await one.track("tick", { seq });
    const left = await one.shutdown({ timeoutMs: 0 });
    expect(left.queued).toBe(45);
    const firstKeys = [...new Set(p.requests.map((r) => r.key))];
    expect(firstKeys.length).toBeGreaterThanOrEqual(1);
    expect([...storage.items.keys()].every((k) => k.startsWith("svc-events:"))).toBe(true);

    serverUp = true;
    const two = await createEventClient(options);
    expect(two.identity).toEqual(one.identity);
    expect(two.stats().queued).toBe(45);
    const after = await two.flush();
    expect(after).toMatchObject({ queued: 0, delivered: 45 });
    const delivered = p.requests.filter((r) => r.outcome === 202);
    expect(delivered.map((r) => r.events.length)).toEqual([20, 20, 5]);
    for (const k of firstKeys) expect(delivered.map((r) => r.key)).toContain(k); // a retried batch keeps its key
    expect(countBySeq(await storedEvents(s.t, acc.key, acc.linkId))).toEqual(new Map(range(1, 45).map((n) => [n, 1])));
    expect([...storage.items.keys()]).toEqual(["svc-events:state"]);
  });
});

describe("bounds", () => {
  test("past maxQueuedEvents the oldest events (not in flight) are dropped first and reported; the newest are delivered", async () => {
    const acc = await accountWithLink(s.t);
    let serverUp = false;
    const p = await proxy(() => (serverUp ? { forward: true } : { respond: 500 }));
    const drops: DroppedEvents[] = [];
    const client = await createEventClient({
      apiKey: acc.key,
      baseUrl: p.url,
      linkId: acc.linkId,
      maxQueuedEvents: 150,
      retry: { baseMs: 60_000 },
      onDrop: (d) => drops.push(d),
    });
    for (const seq of range(1, 100)) await client.track("tick", { seq }); // a full batch: sent at once, refused
    await until(() => client.stats().lastError !== null, 5000, "the first attempt");
    for (const seq of range(101, 400)) await client.track("tick", { seq });
    const stats = client.stats();
    expect(stats).toMatchObject({ queued: 150, dropped: 250 });
    expect(drops.every((d) => d.reason === "queue_full")).toBe(true);
    expect(drops.flatMap((d) => d.events.map((e) => e.properties!.seq))).toEqual(range(1, 250));

    serverUp = true;
    expect(await client.flush()).toMatchObject({ queued: 0, delivered: 150 });
    const counts = countBySeq(await storedEvents(s.t, acc.key, acc.linkId));
    expect([...counts.keys()].sort((a, b) => a - b)).toEqual(range(251, 400));
  });

  test("a storage that fails: track() rejects and onError hears of it; the events stay queued and are written once it works", async () => {
    const acc = await accountWithLink(s.t);
    const inner = memoryStorage();
    let broken = false;
    const storage: EventStorage = {
      getItem: (k) => inner.getItem(k),
      setItem: (k, v) => (broken ? Promise.reject(new Error("quota exceeded")) : inner.setItem(k, v)),
      removeItem: (k) => inner.removeItem(k),
    };
    const errors: unknown[] = [];
    const client = await createEventClient({
      apiKey: acc.key,
      baseUrl: s.url,
      linkId: acc.linkId,
      storage,
      onError: (e) => errors.push(e),
    });
    broken = true;
    await expect(client.track("tick", { seq: 1 })).rejects.toThrow("quota exceeded");
    expect(errors.length).toBeGreaterThan(0);
    expect(client.stats().queued).toBe(1);
    broken = false;
    await client.track("tick", { seq: 2 });
    const state = JSON.parse((await inner.getItem("svc-events:state"))!);
    const batch = JSON.parse((await inner.getItem(`svc-events:batch:${state.ids[0]}`))!);
    expect(batch.e.map((e: any) => e.properties.seq)).toEqual([1, 2]);
    expect(await client.flush()).toMatchObject({ queued: 0, delivered: 2 });
  });
});
