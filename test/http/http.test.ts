import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestApp, listen, type TestApp } from "../helpers/app";
import { openKv } from "../../server/storage/kv";
import { enforceRateLimit } from "../../server/http/rate-limit";
import { AppError } from "../../server/errors";
import { openClickhouse } from "../../server/storage/clickhouse/client";
import { childEnv, sharedStoresEnv } from "../helpers/stores";
import { until } from "../helpers/until";
import { startRedis } from "../scale/stack";
import { freePort } from "../helpers/server-process";

/** Clicks a server with this DATA_DIR stored: over HTTP in the servers pass, else from a process of its own (one chDB directory per process). */
async function countClicks(dataDir: string, stores: Record<string, string>): Promise<number> {
  if (stores.CLICKHOUSE_URL) {
    const ch = await openClickhouse({ url: stores.CLICKHOUSE_URL, database: stores.CLICKHOUSE_DATABASE, dataDir });
    try {
      return Number((await ch.query<{ c: string }>(`SELECT count() c FROM ${ch.table("clicks")}`))[0].c);
    } finally {
      await ch.close();
    }
  }
  const source = `
    const { openClickhouse } = await import(${JSON.stringify(join(process.cwd(), "server/storage/clickhouse/client.ts"))});
    const ch = await openClickhouse({ database: "svc", dataDir: ${JSON.stringify(dataDir)} });
    const [r] = await ch.query("SELECT count() c FROM svc.clicks");
    console.log(r.c);`;
  return Number(
    Bun.spawnSync([process.execPath, "-e", source], { env: childEnv({}) })
      .stdout.toString()
      .trim(),
  );
}

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({}, { TRUST_PROXY: "true" });
});
const children: ReturnType<typeof Bun.spawn>[] = [];
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL"); // a failed test leaves no server behind
  await t.close();
});

describe("rate limits", () => {
  test("free tier: 50 per hour with headers, then 429 in the string form with Retry-After", async () => {
    const { key } = await t.createAccount({ tier: "free" });
    let last: { status: number; headers: Headers; body: any } | undefined;
    for (let i = 1; i <= 50; i++) {
      last = await t.call("/public-api/v1/links", { key });
      expect(last.status).toBe(200);
      expect(last.headers.get("x-ratelimit-limit")).toBe("50");
      expect(last.headers.get("x-ratelimit-remaining")).toBe(String(50 - i));
    }
    const reset = Number(last!.headers.get("x-ratelimit-reset"));
    expect(reset).toBeGreaterThan(Date.now() / 1000 + 3500);
    const over = await t.call("/public-api/v1/links", { key });
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ success: false, error: "RATE_LIMIT_EXCEEDED", message: expect.stringMatching(/Try again in \d+ seconds/) });
    const retryAfter = Number(over.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(3000);
    expect(retryAfter).toBeLessThanOrEqual(3660);
    expect(over.headers.get("x-ratelimit-remaining")).toBe("0");
  });

  test("the window slides: requests leave it at the end of the minute an hour after theirs, never sooner", async () => {
    const kv = openKv();
    const t0 = Date.UTC(2026, 0, 1, 12, 0, 59);
    for (let i = 0; i < 3; i++) await enforceRateLimit(kv, "k", 3, t0);
    // 59 min 1 s later, the same minute-of-the-hour: still inside the hour, so still over budget.
    const early = await enforceRateLimit(kv, "k", 3, Date.UTC(2026, 0, 1, 13, 0, 0)).catch((e) => e);
    expect(early).toBeInstanceOf(AppError);
    expect(Number((early as AppError).headers!["retry-after"])).toBe(60);
    await expect(enforceRateLimit(kv, "k", 3, t0 + 60 * 60_000)).rejects.toBeInstanceOf(AppError);
    const later = await enforceRateLimit(kv, "k", 3, Date.UTC(2026, 0, 1, 13, 1, 0));
    expect(later.headers["x-ratelimit-remaining"]).toBe("2");
  });

  test("with REDIS_URL the window is shared through Redis (a real redis-server on loopback)", async () => {
    const redis = await startRedis();
    try {
      const a = openKv(redis.url);
      const b = openKv(redis.url); // a second instance
      const now = Date.now();
      await enforceRateLimit(a, "shared", 2, now);
      const second = await enforceRateLimit(b, "shared", 2, now);
      expect(second.headers["x-ratelimit-remaining"]).toBe("0");
      const err = await enforceRateLimit(a, "shared", 2, now).catch((e) => e);
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).headers!["retry-after"]).toBeTruthy();
      expect(await a.claim("idem", "a", 1000, "held")).toBeNull();
      expect(await b.claim("idem", "b", 1000, "held")).toBe("a");
      expect(await b.members("held")).toEqual(["idem"]);
      await a.close();
      await b.close();
    } finally {
      await redis.stop();
    }
  });

  test("POST /journey/events is exempt and carries no X-RateLimit headers", async () => {
    const { key } = await t.createAccount({ tier: "free" });
    const res = await t.call("/public-api/v1/journey/events", { method: "POST", key, json: { events: [] } });
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
  });
});

describe("IP allowlists", () => {
  test.each([
    [["203.0.113.0/24"], "203.0.113.77", 200],
    [["203.0.113.0/24"], "203.0.114.1", 403],
    [["198.51.100.7"], "198.51.100.7", 200],
    [["2001:db8::/32"], "2001:db8:1::5", 200],
    [["2001:db8::/32"], "2001:db9::1", 403],
    [["203.0.113.0/24"], "::ffff:203.0.113.9", 200],
  ])("allowlist %j, client %s → %i", async (allowed, address, status) => {
    const { key } = await t.createAccount({ allowed_ips: allowed });
    // The client wrote the first entry; the proxy appended the address it saw.
    const res = await t.call("/public-api/v1/links", { key, headers: { "x-forwarded-for": `10.0.0.1, ${address}` } });
    expect(res.status).toBe(status);
    if (status === 403) expect(res.body.error.code).toBe("IP_NOT_ALLOWED");
  });

  test("with TRUST_PROXY an entry the client adds in front of X-Forwarded-For does not count", async () => {
    const { key } = await t.createAccount({ allowed_ips: ["203.0.113.7"] });
    const forged = await t.call("/public-api/v1/links", { key, headers: { "x-forwarded-for": "203.0.113.7, 198.51.100.9" } });
    expect(forged.status).toBe(403);
    expect((await t.call("/public-api/v1/links", { key, headers: { "x-forwarded-for": "198.51.100.9, 203.0.113.7" } })).status).toBe(200);
  });

  test("without TRUST_PROXY the socket address counts, not X-Forwarded-For", async () => {
    const plain = await createTestApp();
    const server = listen(plain);
    try {
      const { key } = await plain.createAccount({ allowed_ips: ["127.0.0.1/32"] });
      const spoofed = await fetch(`${server.url}/public-api/v1/links`, { headers: { "x-api-key": key, "x-forwarded-for": "203.0.113.1" } });
      expect(spoofed.status).toBe(200);
      const other = await plain.createAccount({ allowed_ips: ["203.0.113.1"] });
      const denied = await fetch(`${server.url}/public-api/v1/links`, {
        headers: { "x-api-key": other.key, "x-forwarded-for": "203.0.113.1" },
      });
      expect(denied.status).toBe(403);
    } finally {
      await server.stop();
      await plain.close();
    }
  });
});

describe("operations", () => {
  test("healthz checks both stores; metrics are Prometheus text", async () => {
    const health = await t.call("/healthz");
    expect(health.status).toBe(200);
    expect(health.body.data).toMatchObject({ status: "ok", postgres: { ok: true }, clickhouse: { ok: true } });
    await t.call("/public-api/v1/links");
    // Counted after the response is sent.
    const counted = 'http_requests_total{method="GET",route="/public-api/v1/links",status="401"}';
    let metrics = "";
    await until(async () => (metrics = await (await t.request("/metrics")).text()).includes(counted), 10_000, "the request counted");
    expect(metrics).toContain('http_requests_total{method="GET",route="/public-api/v1/links",status="401"}');
    expect(metrics).toContain("http_request_duration_seconds_bucket");
    expect(metrics).toContain('spool_unflushed_bytes{spool="clicks"}');
    expect(metrics).toContain('spool_lag_seconds{spool="journey"}');
    // What holds the memory (docs/operations.md "Memory"): the process, its JavaScript heap, embedded PGlite.
    const part = (name: string) => Number(new RegExp(`^memory_bytes\\{part="${name}"\\} (\\d+)$`, "m").exec(metrics)?.[1]);
    expect(part("resident")).toBeGreaterThan(part("js_heap"));
    expect(part("js_heap")).toBeGreaterThan(0);
    // PGlite's heap only when Postgres is embedded (with a Postgres server there is no such part).
    if (t.runtime.deps.pg.kind === "pglite") expect(part("pglite_wasm")).toBeGreaterThanOrEqual(64 * 2 ** 20);
    else expect(metrics).not.toContain('memory_bytes{part="pglite_wasm"}');
    const { key } = await t.createAccount();
    const link = (
      await t.call("/public-api/v1/links", { method: "POST", key, json: { url: "https://example.com", title: "t", description: "d" } })
    ).body.data;
    await t.request(`/${link.short_code}`, { headers: { "user-agent": "Mozilla/5.0 Safari/605" } });
    await t.flush();
    const after = await (await t.request("/metrics")).text();
    expect(after).toMatch(/events_stored_total\{stream="clicks"\} [1-9]/);
    // Redirects are counted as 302 whether the fast path or the app answered them.
    const server = listen(t);
    try {
      for (let i = 0; i < 3; i++)
        await fetch(`${server.url}/${link.short_code}`, { redirect: "manual", headers: { "user-agent": "Mozilla/5.0 Safari/605" } });
      const redirects = (text: string) =>
        Number(/http_requests_total\{method="GET",route="\/:code",status="302"\} (\d+)/.exec(text)?.[1] ?? 0);
      let text = "";
      await until(
        async () => redirects((text = await (await fetch(`${server.url}/metrics`)).text())) >= 4,
        10_000,
        "four redirects counted",
      );
      expect(redirects(text)).toBe(4);
      expect(text).not.toContain('route="/:code",status="200"');
    } finally {
      await server.stop();
    }
  });

  test("a caller without a valid key gets 401, and with one a malformed body is a 400 naming body", async () => {
    const { key } = await t.createAccount();
    const post = (k?: string, body = "{}") =>
      t.call("/public-api/v1/links", { method: "POST", key: k, body, headers: { "content-type": "application/json" } });
    expect((await post()).status).toBe(401);
    expect((await post("svc_" + "x".repeat(28))).status).toBe(401);
    const parsed = await post(key, "{bad");
    expect({ status: parsed.status, field: parsed.body.error.details.fields[0].field }).toEqual({ status: 400, field: "body" });
  });

  test("every response carries X-Request-Id matching meta.request_id, including errors", async () => {
    const res = await t.call("/public-api/v1/nothing-here/really");
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("NOT_FOUND");
    expect(res.headers.get("x-request-id")).toBe(res.body.meta.request_id);
    const bad = await t.call("/admin/v1/accounts", {
      method: "POST",
      body: "{not json",
      headers: { authorization: "Bearer test-admin-token-0123456789", "content-type": "application/json" },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("VALIDATION_ERROR");
  });

  test("migrations are recorded and idempotent on both stores", async () => {
    const { openPostgres } = await import("../../server/storage/postgres/client");
    const dir = mkdtempSync(join(tmpdir(), "svc-migrate-"));
    const url = process.env.SVC_TEST_DATABASE_URL;
    for (let i = 0; i < 2; i++) {
      const pg = await openPostgres({ dataDir: dir, databaseUrl: url });
      const { sql } = await import("drizzle-orm");
      const applied = await pg.query<{ n: string }>(sql`select count(*) as n from drizzle.__drizzle_migrations`);
      expect(Number(applied[0].n)).toBeGreaterThanOrEqual(2);
      await pg.close();
    }
    const versions = await t.runtime.deps.ch.query<{ version: number }>(
      `SELECT version FROM ${t.runtime.deps.ch.table("schema_migrations")} ORDER BY version`,
    );
    expect(versions.map((v) => Number(v.version))).toContain(1);
  });

  test("SIGTERM drains the spools into ClickHouse before exiting", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "svc-sigterm-"));
    const port = freePort();
    const stores = await sharedStoresEnv(); // ClickHouse over HTTP in the servers pass; Postgres embedded for the dev key
    const env = childEnv({
      ...stores,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      BASE_URL: `http://127.0.0.1:${port}`,
      SPOOL_FLUSH_MS: "600000",
      LOG_LEVEL: "error",
    });
    const child = Bun.spawn([process.execPath, "server/main.ts"], { env, stdout: "ignore", stderr: "inherit" });
    children.push(child);
    // A first start initialises PGlite, which takes a while on a loaded machine.
    for (const deadline = Date.now() + 120_000; child.exitCode === null && Date.now() < deadline; await Bun.sleep(100)) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) break;
      } catch {}
    }
    const key = readFileSync(join(dataDir, "dev-key.txt"), "utf8").trim();
    const link = (await (
      await fetch(`http://127.0.0.1:${port}/public-api/v1/links`, {
        method: "POST",
        headers: { "x-api-key": key, "content-type": "application/json" },
        body: JSON.stringify({ url: "https://example.com", title: "t", description: "d" }),
      })
    ).json()) as any;
    for (let i = 0; i < 5; i++)
      await fetch(`http://127.0.0.1:${port}/${link.data.short_code}`, {
        redirect: "manual",
        headers: { "user-agent": "Mozilla/5.0 Safari/605" },
      });
    child.kill("SIGTERM");
    const exited = await Promise.race([child.exited, Bun.sleep(60_000).then(() => "still running")]);
    if (exited !== 0) child.kill("SIGKILL");
    expect(exited).toBe(0);
    expect(await countClicks(dataDir, stores)).toBe(5);
  }, 240_000);
});
