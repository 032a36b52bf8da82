// `bun run bench links`: GET /links over 100,000 links of one account (plain, tag filter, search, sorts, a deep page, a broad filter)
// and POST /links/bulk with 10,000 links, in-process through the app's handler, embedded PGlite.
// Targets: list p50 < 50 ms; bulk 10,000 < 10 s.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { loadConfig } from "../../server/config";
import { openRuntime } from "../../server/runtime";
import { table } from "./lib-server";

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const dataDir = mkdtempSync(join(tmpdir(), "svc-bench-links-"));
// BENCH_DATABASE_URL: run against a Postgres server instead of embedded PGlite.
const databaseUrl = process.env.BENCH_DATABASE_URL;
const rt = await openRuntime(
  loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: "error",
    ADMIN_TOKEN: "bench-admin-token-0123456789",
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  }),
);
console.log(`Postgres: ${rt.deps.pg.kind}`);
const { createAccount, createKey } = await import("../../server/accounts/service");
const { id: accountId } = await createAccount(rt.deps.pg, { name: "bench", tier: "scale" });
const { key } = await createKey(rt.deps.pg, accountId, { name: "bench", scopes: ["links:read", "links:write"] });
await rt.deps.pg.query(sql`
  insert into links (account_id, short_code, original_url, title, tags, created_at)
  select ${accountId}::uuid, 'b' || g, 'https://example.com/page/' || g, 'Landing page ' || g, array['tag' || (g % 20)], now() - (g || ' seconds')::interval
  from generate_series(1, 100000) g`);
await rt.deps.pg.query(sql`analyze links`);

const call = (path: string, init: RequestInit = {}) =>
  rt.app.handle(
    new Request(`http://localhost:3000/public-api/v1${path}`, {
      ...init,
      headers: { "x-api-key": key, "content-type": "application/json" },
    }),
  );

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const rows: Record<string, string | number>[] = [];
for (const [name, q] of [
  ["newest 50", "/links?per_page=50"],
  ["tag filter", "/links?per_page=50&tags=tag7"],
  ["search", "/links?per_page=50&search=page%2F9999"],
  ["sort by title asc", "/links?per_page=50&sort_by=title&sort_order=asc"],
  ["sort by URL", "/links?per_page=50&sort_by=original_url"],
  ["page 100", "/links?per_page=100&page=100"],
  // A filter every link matches: meta.total is a count over all 100,000 rows.
  ["is_active=true", "/links?per_page=50&is_active=true"],
] as const) {
  await call(q);
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    const res = await call(q);
    await res.text();
    times.push(performance.now() - started);
  }
  rows.push({ "GET /links (100,000 links)": name, "p50 ms": pct(times, 0.5).toFixed(1), "p99 ms": pct(times, 0.99).toFixed(1) });
}
table(rows);

const items = Array.from({ length: 10_000 }, (_, i) => ({ url: `https://example.com/bulk/${i}`, title: `t${i}`, description: "d" }));
const started = performance.now();
const res = await call("/links/bulk", { method: "POST", body: JSON.stringify(items) });
const body = (await res.json()) as { data: { success_count: number } };
console.log(
  `\nPOST /links/bulk 10,000 links: ${((performance.now() - started) / 1000).toFixed(2)} s, status ${res.status}, created ${body.data.success_count} (target < 10 s)`,
);
await rt.close();
rmSync(dataDir, { recursive: true, force: true });
