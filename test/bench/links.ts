// `bun run bench links`: GET /links over 100,000 links of one account (plain, tag filter, search, sorts, a deep page, a broad filter)
// and POST /links/bulk with 10,000 links, in-process through the app's handler, embedded PGlite.
// Each beside a baseline in the same run, through the same store: Postgres reading one page of 50 links
// in raw SQL (for the lists), inserting 10,000 links in one INSERT … SELECT (for the bulk create).
// Targets: list p50 < 50 ms; bulk 10,000 < 10 s.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { loadConfig } from "../../server/config";
import { openRuntime } from "../../server/runtime";
import { table } from "./lib-server";
import { timeAgainstBaseline, timingColumns } from "./lib-timing";

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

// The raw work behind a list: Postgres reading the newest 50 live links of the account (every column).
const rawPage = () =>
  rt.deps.pg.query(sql`
    select * from links where account_id = ${accountId}::uuid and deleted_at is null order by created_at desc, id desc limit 50`);
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
  const t = await timeAgainstBaseline(RUNS, async () => (await call(q)).text(), rawPage);
  rows.push({ "GET /links (100,000 links)": name, ...timingColumns(t) });
}
table(rows);

const items = Array.from({ length: 10_000 }, (_, i) => ({ url: `https://example.com/bulk/${i}`, title: `t${i}`, description: "d" }));
const started = performance.now();
const res = await call("/links/bulk", { method: "POST", body: JSON.stringify(items) });
const body = (await res.json()) as { data: { success_count: number } };
const bulkSeconds = (performance.now() - started) / 1000;
// Baseline: the same store inserting 10,000 links (codes, URLs, titles) in one statement.
const rawStarted = performance.now();
await rt.deps.pg.query(sql`
  insert into links (account_id, short_code, original_url, title, description)
  select ${accountId}::uuid, 'raw' || g, 'https://example.com/raw/' || g, 't' || g, 'd' from generate_series(1, 10000) g`);
const rawSeconds = (performance.now() - rawStarted) / 1000;
console.log(
  `\n${RUNS} runs each; list baseline: one page of the newest 50 links in raw SQL through the same store, called in turn with each case.`,
);
console.log(
  `POST /links/bulk 10,000 links: ${bulkSeconds.toFixed(2)} s, status ${res.status}, created ${body.data.success_count} (target < 10 s); ` +
    `baseline (one INSERT … SELECT of 10,000 links): ${rawSeconds.toFixed(2)} s; ratio ${(bulkSeconds / rawSeconds).toFixed(1)}`,
);
await rt.close();
rmSync(dataDir, { recursive: true, force: true });
