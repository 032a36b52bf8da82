// When the clicks spool holds more than SPOOL_MAX_BYTES (the flusher fell behind the redirects), the
// redirects go on and every click is kept, and the flusher stores at normal CPU priority instead of
// background until it is back under the bound: the instance trades redirect rate for a lag that stops
// growing, rather than filling the disk.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, listen, type TestApp } from "../helpers/app";

let t: TestApp;
beforeAll(async () => {
  // A bound of a few click records, and no timed flush: the test moves the spool with t.flush().
  t = await createTestApp({}, { SPOOL_MAX_BYTES: "2000", SPOOL_FLUSH_MS: "3600000" });
});
afterAll(() => t?.close());

const BROWSER = { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120 Safari/537.36" };
const gauge = async (name: string) => {
  const text = await (await t.request("/metrics")).text();
  const m = new RegExp(`^${name.replace(/[{}]/g, "\\$&")} (\\S+)$`, "m").exec(text);
  return m ? Number(m[1]) : undefined;
};

test("over SPOOL_MAX_BYTES every redirect is served and stored, at normal flush priority until caught up", async () => {
  const { key } = await t.createAccount();
  const link = (
    await t.call("/public-api/v1/links", { method: "POST", key, json: { url: "https://example.com/x", title: "t", description: "d" } })
  ).body.data;
  const server = listen(t);
  const redirect = () => fetch(`${server.url}/${link.short_code}`, { redirect: "manual", headers: BROWSER }).then((r) => r.status);
  try {
    const statuses = await Promise.all(Array.from({ length: 30 }, redirect));
    expect(statuses.every((s) => s === 302)).toBe(true);
    expect(await gauge('spool_over_bound{spool="clicks"}')).toBe(1);
    expect(await gauge('spool_lag_seconds{spool="clicks"}')).toBeGreaterThan(0);

    await t.flush();
    expect(await gauge('spool_over_bound{spool="clicks"}')).toBe(0);
    expect(await gauge("click_flush_background")).toBe(0); // that backlog was stored at normal priority

    expect(await redirect()).toBe(302); // one click, under the bound
    await t.flush();
    expect(await gauge("click_flush_background")).toBe(1);
  } finally {
    await server.stop();
  }
  const stats = await t.call(`/public-api/v1/links/${link.id}/stats`, { key });
  expect(stats.body.data.total_clicks).toBe(31);
});
