// A SIGTERM drains the spools for at most SPOOL_DRAIN_MS, so a shutdown fits the orchestrator's grace
// period whatever the backlog; what it leaves stays in the spool, and the next start stores it first,
// each click once.
import { afterAll, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import { readCheckpoint, segName } from "../../server/ingest/spool/segments";
import { api, provision, serverProcess } from "../helpers/server-process";
import { until } from "../helpers/until";

// No timed flush at all, and no time to drain at shutdown: every click is still in the spool at exit.
const server = serverProcess({ SPOOL_FLUSH_MS: "3600000", SPOOL_DRAIN_MS: "0" });
afterAll(() => server.remove());
const clicksDir = join(server.dataDir, "spool", "clicks");

test("a shutdown whose drain is cut leaves the clicks in the spool, and the next start stores each once", async () => {
  await server.start();
  const { key, linkId } = await provision(server.url, ["links:read", "links:write", "analytics:read"]);
  const link = (await api(server.url, `/public-api/v1/links/${linkId}`, { key })).body.data;
  for (let i = 0; i < 40; i++) {
    const res = await fetch(`${server.url}/${link.short_code}`, {
      redirect: "manual",
      headers: { "user-agent": "Mozilla/5.0 Chrome/120" },
    });
    expect(res.status).toBe(302);
  }
  await server.stop();
  // The drain was cut: the checkpoint is still behind the end of what the redirects wrote.
  const checkpoint = readCheckpoint(clicksDir);
  expect(checkpoint.offset).toBeLessThan(statSync(join(clicksDir, segName(checkpoint.segment))).size);

  // The next start flushes the backlog at once (its timer would wait an hour here).
  await server.start();
  const unflushed = async () =>
    Number(/spool_unflushed_bytes\{spool="clicks"\} (\d+)/.exec(await fetch(`${server.url}/metrics`).then((r) => r.text()))?.[1]);
  await until(async () => (await unflushed()) === 0, 60_000, "the clicks spool flushed after the restart");
  const stats = await api(server.url, `/public-api/v1/links/${linkId}/stats`, { key });
  expect(stats.body.data.total_clicks).toBe(40);
  await server.stop();
}, 300_000);
