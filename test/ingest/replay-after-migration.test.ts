// A spool chunk whose insert landed but whose checkpoint was not saved (a kill -9 between the two) is
// replayed by the next process under the same deduplication token, and every rollup must see it once.
// The chunk here is inserted by the process that ran the ClickHouse migrations: a view that a migration
// had changed in place (ALTER TABLE … MODIFY QUERY) named its blocks differently there than after a
// restart, and the replay was counted twice in the click aggregates.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { childEnv, sharedStoresEnv } from "../helpers/stores";
import { freePort } from "../helpers/server-process";

const ROOT = join(import.meta.dir, "..", "..");
const started: ReturnType<typeof Bun.spawn>[] = [];
afterAll(() => {
  for (const p of started) if (p.exitCode === null) p.kill("SIGKILL");
});

test("a chunk inserted by the migrating process and replayed after a restart is counted once in every report", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-replay-"));
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const stores = await sharedStoresEnv();
  const start = async () => {
    const proc = Bun.spawn([process.execPath, join(ROOT, "server/main.ts")], {
      // Flushes only when it stops (SIGTERM drains the spool in one chunk).
      env: childEnv({
        ...stores,
        DATA_DIR: dataDir,
        PORT: String(port),
        HOST: "127.0.0.1",
        BASE_URL: url,
        LOG_LEVEL: "error",
        SPOOL_FLUSH_MS: "3600000",
      }),
      stdout: "ignore",
      stderr: "inherit",
    });
    started.push(proc);
    for (let i = 0; i < 1200; i++) {
      try {
        if ((await fetch(`${url}/healthz`)).ok) return proc;
      } catch {}
      await Bun.sleep(100);
    }
    throw new Error("server did not start");
  };
  const stop = async (proc: ReturnType<typeof Bun.spawn>) => {
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
  };
  const checkpointFile = join(dataDir, "spool", "clicks", "checkpoint.json");

  let proc = await start();
  const key = readFileSync(join(dataDir, "dev-key.txt"), "utf8").trim();
  const headers = { "x-api-key": key, "content-type": "application/json" };
  const link = (
    (await (
      await fetch(`${url}/public-api/v1/links`, {
        method: "POST",
        headers,
        body: JSON.stringify({ url: "https://example.com/r", title: "t", description: "d" }),
      })
    ).json()) as any
  ).data;
  for (let i = 0; i < 50; i++) {
    const res = await fetch(`${url}/${link.short_code}`, { redirect: "manual", headers: { "user-agent": "Mozilla/5.0 Chrome/120" } });
    expect(res.status).toBe(302);
  }
  await stop(proc); // the migrating process inserts the 50 clicks as one chunk
  const flushed = JSON.parse(readFileSync(checkpointFile, "utf8"));
  expect(flushed.pending).toBeNull();
  expect(flushed.offset).toBeGreaterThan(0);
  // As if the process had died after the insert and before saving the checkpoint.
  writeFileSync(
    checkpointFile,
    JSON.stringify({ segment: flushed.segment, offset: 0, pending: { segment: flushed.segment, start: 0, end: flushed.offset } }),
  );

  proc = await start();
  for (let i = 0; i < 200 && JSON.parse(readFileSync(checkpointFile, "utf8")).pending !== null; i++) await Bun.sleep(50);
  expect(JSON.parse(readFileSync(checkpointFile, "utf8"))).toEqual(flushed);
  const stats = ((await (await fetch(`${url}/public-api/v1/links/${link.id}/stats`, { headers })).json()) as any).data;
  const summary = ((await (await fetch(`${url}/public-api/v1/analytics/summary?days=1`, { headers })).json()) as any).data;
  await stop(proc);
  expect(stats.total_clicks).toBe(50);
  expect(summary.analytics.total_clicks).toBe(50);
}, 300_000);
