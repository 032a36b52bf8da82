// Liveness and readiness over HTTP, with a real ClickHouse (the HTTP stand-in, its own process) stopped
// and started again under a running server: still ready (200, warn, naming the store) and alive, the
// redirect still accepts clicks into the spool, and ready again with those clicks stored once it is back.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { freePort, serverProcess, spawnServer } from "../helpers/server-process";
import { testDatabaseUrl, testRedisUrl } from "../helpers/stores";
import { until } from "../helpers/until";
import { readiness } from "../../server/ops/health";

const STAND_IN = join(import.meta.dir, "..", "support", "clickhouse-http.ts");
const UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120 Safari/537.36";
const children: Subprocess[] = [];
afterAll(() => {
  for (const p of children) if (p.exitCode === null) p.kill("SIGKILL");
});

/** The stand-in on a fixed port, so that the server finds it again after a restart. */
async function startClickhouse(port: number, path: string): Promise<Subprocess> {
  const proc = Bun.spawn([process.execPath, STAND_IN, "--port", String(port), "--path", path], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", TZ: "UTC" },
    stdout: "pipe",
    stderr: "inherit",
  });
  children.push(proc);
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  const { done } = await reader.read(); // it prints its URL once it listens
  if (done) throw new Error("the ClickHouse stand-in exited before listening");
  reader.releaseLock();
  return proc;
}

const health = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get("content-type"), body: (await res.json()) as Record<string, any> };
};

test("readiness warns while ClickHouse is stopped, it does not fail, nor does liveness; clicks taken meanwhile are stored once it is back", async () => {
  const chPort = freePort();
  const chPath = mkdtempSync(join(tmpdir(), "svc-health-ch-"));
  let clickhouse = await startClickhouse(chPort, chPath);
  const dataDir = mkdtempSync(join(tmpdir(), "svc-health-"));
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const log: string[] = [];
  const server = spawnServer(
    {
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      CLICKHOUSE_URL: `http://127.0.0.1:${chPort}`,
      LOG_LEVEL: "silent",
      SPOOL_FLUSH_MS: "100",
      // Small enough that one click held back by the outage puts the clicks spool over it.
      SPOOL_MAX_BYTES: "100",
    },
    log,
  ); // the ClickHouse client's connection errors during the outage go to the log, not the test's output
  children.push(server);
  await until(async () => (await fetch(`${url}/livez`).catch(() => null))?.ok === true, 60_000, "the server listens");

  const live = await health(`${url}/livez`);
  expect(live).toMatchObject({ status: 200, type: "application/health+json", body: { status: "pass" } });
  const ready = await health(`${url}/readyz`);
  expect(ready.status).toBe(200);
  expect(ready.type).toBe("application/health+json");
  expect(ready.body.status).toBe("pass");
  expect(ready.body.checks["postgres:responseTime"][0]).toMatchObject({ status: "pass", observedUnit: "ms", componentType: "datastore" });
  expect(ready.body.checks["clickhouse:responseTime"][0]).toMatchObject({ status: "pass", observedUnit: "ms" });
  expect(ready.body.checks["redis:responseTime"]).toBeUndefined(); // no REDIS_URL: nothing to check
  expect(ready.body.checks["spool:unflushedBytes"].map((c: { componentId: string }) => c.componentId).sort()).toEqual([
    "clicks",
    "journey",
  ]);
  // /healthz keeps its documented envelope.
  const healthz = await health(`${url}/healthz`);
  expect(healthz.status).toBe(200);
  expect(healthz.body.data).toMatchObject({ status: "ok", postgres: { ok: true }, clickhouse: { ok: true } });

  const key = readFileSync(join(dataDir, "dev-key.txt"), "utf8").trim();
  const headers = { "x-api-key": key, "content-type": "application/json" };
  const link = (await (
    await fetch(`${url}/public-api/v1/links`, { method: "POST", headers, body: JSON.stringify({ url: "https://example.com/health" }) })
  ).json()) as { data: { id: string; short_code: string } };

  clickhouse.kill("SIGTERM");
  await clickhouse.exited;

  // Still ready (200, warn): every instance loses ClickHouse at once, and unready ones get no traffic at all.
  const down = await health(`${url}/readyz`);
  expect(down.status).toBe(200);
  expect(down.type).toBe("application/health+json");
  expect(down.body.status).toBe("warn");
  expect(down.body.checks["clickhouse:responseTime"][0].status).toBe("warn");
  expect(down.body.checks["clickhouse:responseTime"][0].output).toBeString();
  expect(down.body.checks["postgres:responseTime"][0].status).toBe("pass");
  expect((await health(`${url}/livez`)).status).toBe(200);
  expect((await health(`${url}/healthz`)).status).toBe(503);

  // The instance still serves what needs only the spool: the redirect takes the click.
  const redirect = await fetch(`${url}/${link.data.short_code}`, { redirect: "manual", headers: { "user-agent": UA } });
  expect(redirect.status).toBe(302);
  await until(
    async () => {
      const spool = (await health(`${url}/readyz`)).body.checks["spool:unflushedBytes"];
      return spool.find((c: { componentId: string }) => c.componentId === "clicks").status === "warn";
    },
    20_000,
    "the held-back click puts the clicks spool over SPOOL_MAX_BYTES",
  );
  expect(server.exitCode).toBeNull();
  expect((await health(`${url}/readyz`)).status).toBe(200); // the redirects go on through the balancer

  clickhouse = await startClickhouse(chPort, chPath);
  await until(async () => (await health(`${url}/readyz`)).body.status === "pass", 60_000, "pass again once ClickHouse is back");
  await until(
    async () => {
      const stats = await fetch(`${url}/public-api/v1/links/${link.data.id}/stats`, { headers });
      return ((await stats.json()) as { data: { total_clicks: number } }).data.total_clicks === 1;
    },
    20_000,
    "the click taken during the outage is in the stats",
  );
  server.kill("SIGTERM");
  expect(await server.exited).toBe(0);
  clickhouse.kill("SIGTERM");
  await clickhouse.exited;
}, 180_000);

test("readiness checks every store this pass configures: Redis too when REDIS_URL is set", async () => {
  const server = serverProcess(); // this pass's stores: embedded, a Postgres server, or every store a server
  try {
    await server.start();
    const ready = await health(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    const stores = Object.keys(ready.body.checks).filter((k) => k.endsWith(":responseTime"));
    const withRedis = Boolean(testRedisUrl && testDatabaseUrl); // REDIS_URL only beside a Postgres server
    expect(stores.sort()).toEqual(
      ["clickhouse:responseTime", "postgres:responseTime", ...(withRedis ? ["redis:responseTime"] : [])].sort(),
    );
    for (const key of stores) expect(ready.body.checks[key][0].status, key).toBe("pass");
  } finally {
    await server.stop();
    server.remove();
  }
}, 120_000);

test("readiness fails only when a store this instance cannot serve without is down", async () => {
  const down = () => Promise.reject(new Error("refused"));
  const up = () => Promise.resolve();
  const report = (stores: { name: string; ping: () => Promise<void>; required: boolean }[], isOverBound = false) =>
    readiness({ version: "t", instanceId: "i", stores, spools: [{ name: "clicks", unflushedBytes: 1, isOverBound }], spoolMaxBytes: 1 });
  expect((await report([{ name: "postgres", ping: up, required: true }])).status).toBe("pass");
  expect((await report([{ name: "postgres", ping: up, required: true }], true)).status).toBe("warn");
  expect(
    (
      await report([
        { name: "postgres", ping: up, required: true },
        { name: "clickhouse", ping: down, required: false },
      ])
    ).status,
  ).toBe("warn");
  const failed = await report([
    { name: "postgres", ping: down, required: true },
    { name: "clickhouse", ping: up, required: false },
  ]);
  expect(failed.status).toBe("fail");
  expect(failed.checks["postgres:responseTime"][0]).toMatchObject({ status: "fail", output: "refused" });
});
