// A spool chunk whose insert landed but whose checkpoint was not saved (a kill -9 between the two) is
// replayed by the next process under the same deduplication token, and every rollup must see it once.
// The chunk here is inserted by the process that ran the ClickHouse migrations: a view that a migration
// had changed in place (ALTER TABLE … MODIFY QUERY) named its blocks differently there than after a
// restart, and the replay was counted twice in the click aggregates.
import { afterAll, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { api, provision, serverProcess } from "../helpers/server-process";

// Flushes only when it stops: SIGTERM drains the spool in one chunk.
const server = serverProcess({ SPOOL_FLUSH_MS: "3600000" });
afterAll(() => server.remove());
const checkpointFile = join(server.dataDir, "spool", "clicks", "checkpoint.json");
const checkpoint = () => JSON.parse(readFileSync(checkpointFile, "utf8"));

test("a chunk inserted by the migrating process and replayed after a restart is counted once in every report", async () => {
  await server.start();
  const { key, linkId } = await provision(server.url, ["links:read", "links:write", "analytics:read"]);
  const link = (await api(server.url, `/public-api/v1/links/${linkId}`, { key })).body.data;
  for (let i = 0; i < 50; i++) {
    const res = await fetch(`${server.url}/${link.short_code}`, {
      redirect: "manual",
      headers: { "user-agent": "Mozilla/5.0 Chrome/120" },
    });
    expect(res.status).toBe(302);
  }
  await server.stop(); // the migrating process inserts the 50 clicks as one chunk
  const flushed = checkpoint();
  expect(flushed.pending).toBeNull();
  expect(flushed.offset).toBeGreaterThan(0);
  // As if the process had died after the insert and before saving the checkpoint.
  writeFileSync(
    checkpointFile,
    JSON.stringify({ ...flushed, offset: 0, pending: { segment: flushed.segment, start: 0, end: flushed.offset } }),
  );

  await server.start();
  for (let i = 0; i < 200 && checkpoint().pending !== null; i++) await Bun.sleep(50);
  expect(checkpoint()).toEqual(flushed);
  const stats = await api(server.url, `/public-api/v1/links/${linkId}/stats`, { key });
  const summary = await api(server.url, "/public-api/v1/analytics/summary?days=1", { key });
  await server.stop();
  expect(stats.body.data.total_clicks).toBe(50);
  expect(summary.body.data.analytics.total_clicks).toBe(50);
}, 300_000);
