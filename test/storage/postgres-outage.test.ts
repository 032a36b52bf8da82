// Reports when the Postgres server cannot be reached: 503 POSTGRES_UNAVAILABLE with Retry-After, not a
// 500. The app reaches Postgres through a loopback proxy, closed (with its connections) to stop it.
// Needs a Postgres server (SVC_TEST_DATABASE_URL, as in CI's server runs); embedded PGlite cannot go away.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";
import { startSlowProxy, type SlowProxy } from "../helpers/slow-tcp-proxy";
import { freshServerDatabase, testDatabaseUrl } from "../helpers/stores";
import { createLink, P } from "../analytics/helpers";

describe.skipIf(!testDatabaseUrl)("reports while Postgres is stopped", () => {
  let proxy: SlowProxy;
  let t: TestApp;
  let key: string;
  let linkId: string;

  beforeAll(async () => {
    const url = new URL(await freshServerDatabase(testDatabaseUrl!, "svc_pg_outage"));
    proxy = startSlowProxy(Number(url.port));
    url.hostname = "127.0.0.1";
    url.port = String(proxy.port);
    t = await createTestApp({}, { DATABASE_URL: url.toString() });
    ({ key } = await t.createAccount());
    linkId = (await createLink(t, key)).id;
  }, 120_000);
  afterAll(async () => {
    proxy?.stop();
    await t?.close().catch(() => {});
  });

  test("every report answers 503 POSTGRES_UNAVAILABLE with Retry-After", async () => {
    expect((await t.call(`${P}/analytics/summary?days=7`, { key })).status).toBe(200);
    proxy.stop();
    for (const report of ["/analytics/summary?days=7", `/links/${linkId}/stats`, `/journey/links/${linkId}/summary`]) {
      const res = await t.call(`${P}${report}`, { key });
      expect([report, res.status, res.body.error?.code]).toEqual([report, 503, "POSTGRES_UNAVAILABLE"]);
      expect(res.body.error.message).toBe("Postgres cannot be reached; retry shortly");
      expect(res.headers.get("retry-after")).toBe("5");
    }
  }, 60_000);
});
