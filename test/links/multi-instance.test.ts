// Several instances share links through Postgres: a change made through one is seen by the other's
// redirect at once (NOTIFY invalidates its cache), and migrations run safely side by side.
// With SVC_TEST_DATABASE_URL (CI's Postgres pass) the two runtimes share one real database; embedded
// PGlite belongs to one process, so there the same checks run against a single instance.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestApp, listen, type TestApp } from "../helpers/app";
import { testDatabaseUrl } from "../helpers/stores";
import { openPostgres } from "../../server/storage/postgres/client";

let a: TestApp;
let b: TestApp;
beforeAll(async () => {
  a = await createTestApp();
  b = testDatabaseUrl ? await createTestApp({ databaseUrl: a.config.databaseUrl }) : a;
});
afterAll(async () => {
  if (b !== a) await b.close();
  await a.close();
});

const BROWSER = { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/120 Safari/537.36" };

test("a link deactivated through instance A stops redirecting on instance B at once", async () => {
  const { key } = await a.createAccount();
  const link = (
    await a.call("/public-api/v1/links", { method: "POST", key, json: { url: "https://example.com/shared", title: "t", description: "d" } })
  ).body.data;
  const server = listen(b);
  try {
    const hop = () => fetch(`${server.url}/${link.short_code}`, { redirect: "manual", headers: BROWSER }).then((r) => r.status);
    expect(await hop()).toBe(302); // B caches the link
    await a.call(`/public-api/v1/links/${link.id}`, { method: "PATCH", key, json: { is_active: false } });
    let status = await hop();
    for (let i = 0; i < 20 && status !== 404; i++) {
      await Bun.sleep(25);
      status = await hop();
    } // NOTIFY is asynchronous
    expect(status).toBe(404);
  } finally {
    await server.stop();
  }
});

test("codes a bulk import on instance A creates resolve on instance B, which had cached them as unknown", async () => {
  const { key } = await a.createAccount({ tier: "scale" });
  const prefix = `bulk${crypto.randomUUID().slice(0, 8)}`;
  // Enough keys that the invalidation takes several NOTIFY payloads (each under 8,000 bytes).
  const aliases = Array.from({ length: 400 }, (_, i) => `${prefix}-${String(i).padStart(40, "0")}`);
  const server = listen(b);
  try {
    const hop = (alias: string) => fetch(`${server.url}/${alias}`, { redirect: "manual", headers: BROWSER }).then((r) => r.status);
    const probes = [aliases[0], aliases[199], aliases[399]];
    for (const alias of probes) expect(await hop(alias)).toBe(404); // B caches "unknown code"
    const res = await a.call("/public-api/v1/links/bulk", {
      method: "POST",
      key,
      json: aliases.map((alias) => ({ url: "https://example.com/bulk", title: "t", description: "d", custom_alias: alias })),
    });
    expect(res.status).toBe(201);
    for (const alias of probes) {
      let status = await hop(alias);
      for (let i = 0; i < 20 && status !== 302; i++) {
        await Bun.sleep(25);
        status = await hop(alias);
      } // NOTIFY is asynchronous
      expect(status).toBe(302);
    }
  } finally {
    await server.stop();
  }
});

test("a key revoked through instance A is refused by instance B", async () => {
  const { accountId, key, keyId } = await a.createAccount();
  expect((await b.call("/public-api/v1/links", { key })).status).toBe(200);
  await a.admin("DELETE", `/accounts/${accountId}/keys/${keyId}`);
  let status = (await b.call("/public-api/v1/links", { key })).status;
  for (let i = 0; i < 20 && status !== 401; i++) {
    await Bun.sleep(25);
    status = (await b.call("/public-api/v1/links", { key })).status;
  }
  expect(status).toBe(401);
});

test("two instances migrating the same database at once both start (advisory lock)", async () => {
  if (!testDatabaseUrl) {
    const dir = mkdtempSync(join(tmpdir(), "svc-migrate-twice-"));
    const first = await openPostgres({ dataDir: dir });
    await first.close();
    const second = await openPostgres({ dataDir: dir }); // already migrated: nothing to do, no error
    await second.close();
    return;
  }
  const { default: postgres } = await import("postgres");
  const admin = postgres(testDatabaseUrl, { max: 1, onnotice: () => {} });
  const name = `svc_migrate_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(testDatabaseUrl);
  url.pathname = `/${name}`;
  const [x, y] = await Promise.all([
    openPostgres({ dataDir: "/nonexistent", databaseUrl: url.toString() }),
    openPostgres({ dataDir: "/nonexistent", databaseUrl: url.toString() }),
  ]);
  const { sql } = await import("drizzle-orm");
  const rows = await x.query<{ n: string }>(sql`select count(*) as n from drizzle.__drizzle_migrations`);
  const tables = await y.query<{ n: string }>(sql`select count(*) as n from information_schema.tables where table_name = 'links'`);
  expect(Number(tables[0].n)).toBe(1);
  expect(Number(rows[0].n)).toBeGreaterThanOrEqual(3);
  await x.close();
  await y.close();
});

test("max_clicks is exact when two instances serve the same link at once", async () => {
  const { key } = await a.createAccount();
  const link = (
    await a.call("/public-api/v1/links", {
      method: "POST",
      key,
      json: {
        url: "https://example.com/limited",
        title: "t",
        description: "d",
        max_clicks: 17,
        max_clicks_url: "https://example.com/full",
      },
    })
  ).body.data;
  const servers = [listen(a), listen(b)];
  try {
    const hops = servers.flatMap((s) =>
      Array.from({ length: 20 }, () =>
        fetch(`${s.url}/${link.short_code}`, { redirect: "manual", headers: BROWSER }).then((r) => r.headers.get("location")),
      ),
    );
    const answers = await Promise.all(hops);
    expect(answers.filter((l) => l === "https://example.com/limited")).toHaveLength(17);
    expect(answers.filter((l) => l === "https://example.com/full")).toHaveLength(23);
    expect((await b.call(`/public-api/v1/links/${link.id}`, { key })).body.data.counted_clicks).toBe(17);
  } finally {
    for (const s of servers) await s.stop();
  }
});
