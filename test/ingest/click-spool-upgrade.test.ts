// An upgrade over a spool the previous version left behind: its clicks are JSON lines (the previous
// format, one `[{…}]` line per redirect), the last one torn by a kill -9. The new version appends its
// binary records after them in the same segment, and stores every whole click once.
import { afterAll, expect, test } from "bun:test";
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { decodeClicks } from "../../server/ingest/clicks/spool-record";
import { api, provision, serverProcess } from "../helpers/server-process";

// No timed flush: the spool keeps everything until the test says.
const server = serverProcess({ SPOOL_FLUSH_MS: "3600000" });
afterAll(() => server.remove());
const spoolDir = join(server.dataDir, "spool", "clicks");

async function redirects(code: string, n: number, ua: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${server.url}/${code}?n=${i}`, { redirect: "manual", headers: { "user-agent": ua } });
    expect(res.status).toBe(302);
    ids.push(res.headers.get("x-request-id")!);
  }
  return ids;
}

test("an old-format spool torn by a kill -9 is flushed by the new version: nothing lost, nothing doubled", async () => {
  await server.start();
  const { key, linkId } = await provision(server.url, ["links:read", "links:write", "analytics:read"]);
  const link = (await api(server.url, `/public-api/v1/links/${linkId}`, { key })).body.data;
  const oldIds = await redirects(link.short_code, 20, "Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0");
  await server.kill9();

  // Rewrite what was spooled as the previous version wrote it, and tear a last line as its crash would.
  const [segment] = readdirSync(spoolDir).filter((f) => f.endsWith(".log"));
  const clicks = decodeClicks(readFileSync(join(spoolDir, segment)));
  // The first redirect went through the app (the link was not cached yet), whose X-Request-Id is its own.
  expect(clicks.map((c) => c.click_id).slice(1)).toEqual(oldIds.slice(1));
  const oldLines = clicks.map((c) => `[${JSON.stringify(c)}]\n`).join("");
  writeFileSync(join(spoolDir, segment), oldLines);
  appendFileSync(join(spoolDir, segment), `[${JSON.stringify({ ...clicks[0], click_id: crypto.randomUUID() })}`.slice(0, 90));

  await server.start();
  const newIds = await redirects(
    link.short_code,
    10,
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15",
  );
  const mixed = readFileSync(join(spoolDir, segment));
  expect(mixed.subarray(0, oldLines.length).toString()).toBe(oldLines); // the torn tail is gone, the binary records follow
  expect(mixed[oldLines.length]).toBe(0x01);
  await server.stop(); // drains the spool into ClickHouse

  await server.start();
  const stats = await api(server.url, `/public-api/v1/links/${linkId}/stats`, { key });
  const devices = await api(server.url, `/public-api/v1/analytics/devices?days=1&link_id=${linkId}`, { key });
  await server.stop();
  expect(stats.body.data.total_clicks).toBe(30);
  expect(new Set([...oldIds, ...newIds]).size).toBe(30);
  const byBrowser: Record<string, number> = {};
  for (const d of devices.body.data.analytics as { browser: string; clicks: number }[])
    byBrowser[d.browser] = (byBrowser[d.browser] ?? 0) + d.clicks;
  expect(byBrowser).toEqual({ Firefox: 20, Safari: 10 });
}, 300_000);
