// Reports when ClickHouse is slow or gone: a report past its time limit answers 503 QUERY_TIMEOUT and a
// stopped ClickHouse 503 CLICKHOUSE_UNAVAILABLE, both with Retry-After and never a held connection,
// while redirects and journey ingest keep accepting and lose nothing once ClickHouse is back.
// The app reaches the ClickHouse HTTP stand-in through a loopback proxy that can hold its answers.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestApp, type TestApp } from "../helpers/app";
import { startSlowProxy, type SlowProxy } from "../helpers/slow-tcp-proxy";
import { spawnClickhouseHttp, type ClickhouseHttpProcess } from "../support/clickhouse-http/spawn";
import { createLink, P, UA, visit } from "../analytics/helpers";

const LIMIT_MS = 1_000;
const path = mkdtempSync(join(tmpdir(), "svc-ch-outage-"));
let clickhouse: ClickhouseHttpProcess;
let proxy: SlowProxy;
let t: TestApp;
let key: string;
let link: { id: string; short_code: string };

beforeAll(async () => {
  clickhouse = await spawnClickhouseHttp({ path });
  proxy = startSlowProxy(Number(new URL(clickhouse.url).port));
  t = await createTestApp(
    {},
    { TRUST_PROXY: "true", CLICKHOUSE_URL: `http://127.0.0.1:${proxy.port}`, CLICKHOUSE_QUERY_TIMEOUT_MS: String(LIMIT_MS) },
  );
  ({ key } = await t.createAccount());
  link = await createLink(t, key);
  expect(await visit(t, link.short_code, { ip: "8.8.8.8", ua: UA.iphone })).toBe(302);
  await t.flush();
}, 120_000);
afterAll(async () => {
  await t?.close();
  proxy?.stop();
  await clickhouse?.stop();
});

const REPORTS = () => [
  "/analytics/summary?days=7",
  "/analytics/geo?days=7",
  `/links/${link.id}/stats`,
  `/journey/links/${link.id}/summary`,
  `/journey/links/${link.id}/funnel?steps=page_view`,
  "/conversions/summary",
  "/conversions/summary?format=csv",
  "/exports/clicks",
  "/exports/journey-events?format=ndjson",
];

const summaryClicks = async () => {
  const res = await t.call(`${P}/analytics/summary?days=7`, { key });
  expect(res.status).toBe(200);
  return res.body.data.analytics.total_clicks as number;
};

describe("reports while ClickHouse is slow or stopped", () => {
  test("every report answers 200 while ClickHouse answers", async () => {
    for (const report of REPORTS()) expect([report, (await t.call(`${P}${report}`, { key })).status]).toEqual([report, 200]);
    expect(await summaryClicks()).toBe(1);
  });

  test("a report ClickHouse does not answer in time: 503 QUERY_TIMEOUT with Retry-After, soon after the limit", async () => {
    proxy.delayMs = 60_000;
    try {
      const started = performance.now();
      const res = await t.call(`${P}/analytics/summary?days=7`, { key });
      const elapsed = performance.now() - started;
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe("QUERY_TIMEOUT");
      expect(res.body.error.message).toContain("time limit (1 s)");
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(elapsed).toBeGreaterThanOrEqual(LIMIT_MS);
      expect(elapsed).toBeLessThan(LIMIT_MS + 5_000);
    } finally {
      proxy.delayMs = 0;
    }
  });

  test("ClickHouse stopped: every report answers 503 CLICKHOUSE_UNAVAILABLE with Retry-After; clicks and events are kept", async () => {
    const port = Number(new URL(clickhouse.url).port);
    await clickhouse.stop();
    for (const report of REPORTS()) {
      const res = await t.call(`${P}${report}`, { key });
      expect([report, res.status, res.body.error?.code]).toEqual([report, 503, "CLICKHOUSE_UNAVAILABLE"]);
      expect(res.body.error.message).toBe("ClickHouse cannot be reached; retry shortly");
      expect(res.headers.get("retry-after")).toBe("5");
    }
    // Redirects and ingest go on: both are durable in the spool before they answer.
    expect(await visit(t, link.short_code, { ip: "9.9.9.9", ua: UA.windowsChrome })).toBe(302);
    const ingest = await t.call(`${P}/journey/events`, {
      method: "POST",
      key,
      json: {
        events: [{ link_id: link.id, visitor_id: "v1", session_id: "s1", event_type: "page_view", page_url: "https://example.com/a" }],
      },
    });
    expect(ingest.status).toBe(202);

    clickhouse = await spawnClickhouseHttp({ path, port });
    await t.flush();
    expect(await summaryClicks()).toBe(2);
    const journey = await t.call(`${P}/journey/links/${link.id}/summary`, { key });
    expect(journey.status).toBe(200);
    expect(journey.body.data.total_events).toBe(1);
  }, 60_000);
});
