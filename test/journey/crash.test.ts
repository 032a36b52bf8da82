// kill -9 of the server while batches stream in: every batch answered 202 is in ClickHouse exactly
// once after restarts, and no batch, acknowledged or not, is stored twice or in part.
import { afterAll, expect, test } from "bun:test";
import { api as call, provision, serverProcess } from "../helpers/server-process";

const server = serverProcess();
afterAll(() => server.remove());
const url = (path: string) => server.url + path;
const api = (path: string, init: { key?: string } = {}) => call(server.url, path, init);

test("kill -9 during ingest loses no acknowledged batch and duplicates none", async () => {
  await server.start();
  const { key, linkId } = await provision(server.url);

  const SIZE = 10;
  const acked = new Set<number>();
  const sent = new Set<number>();
  const failures: string[] = [];
  let next = 0;
  const sender = async (stop: { done: boolean }) => {
    while (!stop.done) {
      const batch = next++;
      sent.add(batch);
      const events = Array.from({ length: SIZE }, (_, i) => ({
        link_id: linkId,
        visitor_id: `v${batch}`,
        event_type: "custom",
        event_name: "tick",
        page_url: "https://site.example/",
        properties: { batch, i },
      }));
      try {
        const res = await fetch(url("/public-api/v1/journey/events"), {
          method: "POST",
          headers: { "content-type": "application/json", "x-api-key": key },
          body: JSON.stringify({ events }),
        });
        if (res.status === 202) acked.add(batch);
        else if (res.status !== 503) failures.push(`batch ${batch}: status ${res.status}`);
      } catch {
        await Bun.sleep(5); // the server is gone: outcome unknown
      }
    }
  };

  for (let round = 0; round < 3; round++) {
    const stop = { done: false };
    const senders = Array.from({ length: 4 }, () => sender(stop));
    await Bun.sleep(400 + Math.random() * 900);
    await server.kill9(); // at a random moment, mid-stream
    stop.done = true;
    await Promise.all(senders);
    await server.start();
  }
  expect(failures).toEqual([]);
  expect(acked.size).toBeGreaterThan(20);

  // Drain through a clean shutdown, then read everything back from a final process.
  await server.stop();
  await server.start();
  const seen = new Map<string, number>();
  for (let page = 1; ; page++) {
    const res = await api(`/public-api/v1/journey/links/${linkId}/events?period=24h&limit=200&page=${page}`, { key });
    expect(res.status).toBe(200);
    for (const e of res.body.data) {
      const id = `${e.properties.batch}.${e.properties.i}`;
      seen.set(id, (seen.get(id) ?? 0) + 1);
    }
    if (page >= res.body.meta.total_pages) break;
  }
  const perBatch = new Map<number, number>();
  for (const [id, n] of seen) {
    expect(n).toBe(1); // never twice
    const batch = Number(id.split(".")[0]);
    expect(sent.has(batch)).toBe(true);
    perBatch.set(batch, (perBatch.get(batch) ?? 0) + 1);
  }
  for (const n of perBatch.values()) expect(n).toBe(SIZE); // whole batches only
  for (const batch of acked) expect(perBatch.get(batch)).toBe(SIZE); // every acknowledged batch
  // The rollups saw every stored event exactly once too (deduplicated replays reach no view).
  const summary = await api(`/public-api/v1/journey/links/${linkId}/summary?period=24h`, { key });
  expect(summary.body.data.total_events).toBe(seen.size);
  console.log(`crash test: ${sent.size} batches sent, ${acked.size} acknowledged, ${perBatch.size} stored`);
}, 180_000);
