// The embedded stores open with the memory settings of docs/operations.md "Memory": chDB's caches
// bounded (server settings, which only the first connection of a process can give: hence a child
// process, since the tests share one chDB per process) and PGlite's shared buffers and connections.
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");

test("embedded chDB and PGlite open with the bounded caches and buffers, and report their memory", async () => {
  const dir = mkdtempSync(join(tmpdir(), "svc-memory-settings-"));
  const script = join(dir, "open.ts");
  writeFileSync(
    script,
    `import { sql } from "drizzle-orm";
import { openClickhouse } from "${ROOT}/server/storage/clickhouse/client";
import { openPostgres } from "${ROOT}/server/storage/postgres/client";
const ch = await openClickhouse({ database: "memtest", dataDir: "${dir}" });
const pg = await openPostgres({ dataDir: "${dir}" });
const settings = await ch.query("SELECT name, value FROM system.server_settings WHERE name IN ('mark_cache_size', 'primary_index_cache_size', 'index_mark_cache_size')");
const pgSettings = await pg.query(sql\`SELECT name, setting, unit FROM pg_settings WHERE name IN ('shared_buffers', 'max_connections')\`);
console.log(JSON.stringify({ settings, pgSettings, chdb: await ch.memoryBytes?.(), pglite: pg.memoryBytes?.() }));
await ch.close();
await pg.close();
`,
  );
  try {
    const p = Bun.spawnSync([process.execPath, script], { cwd: ROOT, env: { PATH: process.env.PATH ?? "" }, stderr: "pipe" });
    expect(p.stderr.toString()).not.toContain("error");
    const out = JSON.parse(p.stdout.toString().trim().split("\n").pop()!);
    const byName = Object.fromEntries(out.settings.map((r: { name: string; value: string }) => [r.name, Number(r.value)]));
    expect(byName).toEqual({ mark_cache_size: 64 * 2 ** 20, primary_index_cache_size: 32 * 2 ** 20, index_mark_cache_size: 16 * 2 ** 20 });
    const pgByName = Object.fromEntries(out.pgSettings.map((r: { name: string; setting: string }) => [r.name, r.setting]));
    expect(pgByName).toEqual({ shared_buffers: "2048", max_connections: "10" }); // 2,048 pages of 8 kB = 16 MB
    expect(out.chdb).toBeGreaterThan(0);
    expect(out.pglite).toBeGreaterThan(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 180_000);
