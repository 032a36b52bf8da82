// kill -9 of the server while batches stream in: every batch answered 202 is in ClickHouse exactly
// once after restarts, and no batch, acknowledged or not, is stored twice or in part.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { childEnv, preparePostgres, sharedStoresEnv } from "../helpers/stores";

const ADMIN = "crash-test-admin-token-0123456789";
const dataDir = mkdtempSync(join(tmpdir(), "svc-crash-"));
let port = 0;
let child: Subprocess | null = null;
afterAll(() => {
  child?.kill(9);
  rmSync(dataDir, { recursive: true, force: true });
});

function freePort(): number {
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const p = s.port!;
  s.stop(true);
  return p;
}

// The stores every restart shares: Postgres, ClickHouse and Redis servers in the servers passes, else embedded.
let stores: Promise<Record<string, string>> | undefined;
const storesEnv = () => (stores ??= preparePostgres(dataDir).then(sharedStoresEnv));

async function startServer(): Promise<void> {
  port ||= freePort();
  child = Bun.spawn([process.execPath, "server/main.ts"], {
    env: childEnv({
      ...(await storesEnv()),
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      ADMIN_TOKEN: ADMIN,
      LOG_LEVEL: "error",
      SPOOL_FLUSH_MS: "100",
    }),
    stdout: "ignore",
    stderr: "inherit",
  });
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) return;
    } catch {}
    await Bun.sleep(50);
  }
  throw new Error("server did not start");
}

const url = (path: string) => `http://127.0.0.1:${port}${path}`;
async function api(path: string, init: RequestInit & { json?: unknown; key?: string; admin?: boolean } = {}) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (init.key) headers["x-api-key"] = init.key;
  if (init.admin) headers.authorization = `Bearer ${ADMIN}`;
  const res = await fetch(url(path), { ...init, headers, body: init.json === undefined ? undefined : JSON.stringify(init.json) });
  return { status: res.status, body: (await res.json()) as any };
}

test("kill -9 during ingest loses no acknowledged batch and duplicates none", async () => {
  await startServer();
  const account = await api("/admin/v1/accounts", { method: "POST", admin: true, json: { name: "crash", tier: "scale" } });
  const created = await api(`/admin/v1/accounts/${account.body.data.id}/keys`, {
    method: "POST",
    admin: true,
    json: { name: "k", scopes: ["journey:write", "journey:read", "links:write"] },
  });
  const key: string = created.body.data.key;
  const link = await api("/public-api/v1/links", {
    method: "POST",
    key,
    json: { url: "https://example.com/crash", title: "Crash", description: "kill -9 test" },
  });
  expect(link.status).toBe(201);
  const linkId: string = link.body.data.id;

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
    child!.kill(9); // at a random moment, mid-stream
    await child!.exited;
    stop.done = true;
    await Promise.all(senders);
    await startServer();
  }
  expect(failures).toEqual([]);
  expect(acked.size).toBeGreaterThan(20);

  // Drain through a clean shutdown, then read everything back from a final process.
  child!.kill("SIGTERM");
  await child!.exited;
  await startServer();
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
