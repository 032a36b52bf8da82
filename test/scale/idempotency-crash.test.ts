// With Redis (several instances), an idempotency key and its batch survive a kill -9 at either
// dangerous moment. The instance (a real process on a Postgres server, a redis-server and the
// ClickHouse HTTP stand-in) reaches Redis through a proxy that stops it exactly there: its key set in
// Redis but the answer held (the batch not written yet), or its batch written and the request that
// marks the key done held. A client retrying under the same key after the restart gets its batch
// stored exactly once.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { createClient, type ClickHouseClient } from "@clickhouse/client";
import { ADMIN_TOKEN, Instance, startStores, type Stores } from "./stack";
import { parsed } from "../helpers/app";
import { startSlowProxy, type SlowProxy } from "../helpers/slow-tcp-proxy";
import { until } from "../helpers/until";

let stores: Stores & { stop(): Promise<void> };
let proxy: SlowProxy;
let server: Instance;
let redis: RedisClient;
let ch: ClickHouseClient;
let account: { id: string; key: string; linkId: string };

beforeAll(async () => {
  stores = await startStores();
  proxy = startSlowProxy(Number(new URL(stores.redisUrl).port));
  server = new Instance("idem", stores, { REDIS_URL: `redis://127.0.0.1:${proxy.port}` });
  await server.start();
  redis = new RedisClient(stores.redisUrl);
  ch = createClient({ url: stores.clickhouseUrl, request_timeout: 60_000 });
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };
  const acc = await parsed(
    await fetch(`${server.url}/admin/v1/accounts`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ name: "idem", tier: "scale" }),
    }),
  );
  const key = await parsed(
    await fetch(`${server.url}/admin/v1/accounts/${acc.body.data.id}/keys`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ name: "k", scopes: ["journey:write", "links:write"] }),
    }),
  );
  const link = await parsed(
    await fetch(`${server.url}/public-api/v1/links`, {
      method: "POST",
      headers: { "x-api-key": key.body.data.key, "content-type": "application/json" },
      body: JSON.stringify({ url: "https://example.com/idem", title: "t", description: "d" }),
    }),
  );
  account = { id: acc.body.data.id, key: key.body.data.key, linkId: link.body.data.id };
}, 180_000);

afterAll(async () => {
  await server?.stop().catch(() => {});
  proxy?.stop();
  redis?.close();
  await ch?.close();
  await stores?.stop();
}, 120_000);

/** The batch of `name`: five events, one visitor each; null when the connection died with the server. */
const post = (name: string, idem: string) =>
  fetch(`${server.url}/public-api/v1/journey/events`, {
    method: "POST",
    headers: { "x-api-key": account.key, "content-type": "application/json", "x-idempotency-key": idem },
    body: JSON.stringify({
      events: Array.from({ length: 5 }, (_, i) => ({
        link_id: account.linkId,
        visitor_id: `${name}-${i}`,
        event_type: "page_view",
        page_url: "https://shop.example/",
      })),
    }),
  })
    .then(parsed)
    .catch(() => null);

test("killed after its key was set and before its batch was written: the retry after the restart is stored", async () => {
  const idem = "crash-before-write";
  proxy.delayMs = 60_000; // Redis's answers stop reaching the instance: it waits on its claim of the key
  const first = post("before", idem);
  await until(async () => Boolean(await redis.exists(`idem:${account.id}:${idem}`)), 30_000, "the key set in Redis");
  await server.kill();
  expect(await first).toBeNull(); // never answered
  proxy.delayMs = 0;
  await server.start(); // the same DATA_DIR: the same instance
  const retry = await post("before", idem);
  expect(retry?.status).toBe(202);
  expect(retry?.body.data).toEqual({ message: expect.any(String), count: 5 });
  expect((await post("before", idem))?.body.data).toMatchObject({ already_processed: true, count: 0 });
}, 180_000);

test("killed after its batch was written and before its key was marked done: the retry after the restart is already_processed", async () => {
  const idem = "crash-after-write";
  // The instance's request that marks the key done (the only one that removes from a set) never reaches Redis.
  proxy.holdFromClient = (chunk) => new TextDecoder().decode(chunk).includes("SREM");
  const first = post("after", idem);
  await until(() => proxy.held > 0, 30_000, "the instance about to mark the key done");
  await server.kill();
  expect(await first).toBeNull();
  proxy.holdFromClient = null;
  await server.start();
  const retry = await post("after", idem);
  expect(retry?.status).toBe(202);
  expect(retry?.body.data).toMatchObject({ already_processed: true, count: 0 });
}, 180_000);

test("after a clean stop (the spools drained), ClickHouse holds each of those batches exactly once", async () => {
  await server.stop();
  const rows = (await (
    await ch.query({
      query: `SELECT visitor_id, count() AS n FROM ${stores.clickhouseDatabase}.journey_events WHERE account_id = {a:UUID} GROUP BY visitor_id ORDER BY visitor_id`,
      query_params: { a: account.id },
      format: "JSONEachRow",
    })
  ).json()) as { visitor_id: string; n: string }[];
  const expected = [...["after", "before"].flatMap((name) => Array.from({ length: 5 }, (_, i) => `${name}-${i}`))];
  expect(rows.map((r) => [r.visitor_id, Number(r.n)])).toEqual(expected.map((v) => [v, 1]));
}, 180_000);
