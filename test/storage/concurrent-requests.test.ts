// Hundreds of concurrent API requests to our server as a child process (`bun server/main.ts`, this pass's
// stores: a Postgres server in CI's server passes) all answer: link creations (transactions, a savepoint
// per short code, jsonb rules and variants, a queued link.created delivery each), edits of the same links
// (row locks), reads and lists, and racing creations of the same alias (unique violations: one 201, the
// rest 409). Before the driver change a query now and then never completed on a Postgres server, and every
// request queued behind it on that connection waited forever.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { api, provision, serverProcess, type ServerProcess } from "../helpers/server-process";
import { startReceiver, type Receiver } from "../webhooks/receiver";

let server: ServerProcess;
let receiver: Receiver;
beforeAll(async () => {
  receiver = startReceiver();
  server = serverProcess({ WEBHOOK_ALLOW_INSECURE: "true" });
  await server.start();
});
afterAll(async () => {
  await server?.stop();
  server?.remove();
  receiver?.stop();
});

interface Answer {
  label: string;
  status: number;
  body: any;
}

/** Every request gets an answer within `ms`, or the test names those that got none. */
async function allAnswer(requests: { label: string; run: (signal: AbortSignal) => Promise<Answer> }[], ms: number): Promise<Answer[]> {
  const signal = AbortSignal.timeout(ms);
  const settled = await Promise.allSettled(requests.map((r) => r.run(signal)));
  const unanswered = settled.flatMap((s, i) => (s.status === "rejected" ? [`${requests[i].label}: ${s.reason}`] : []));
  expect(unanswered).toEqual([]);
  return settled.map((s) => (s as PromiseFulfilledResult<Answer>).value);
}

const call = (label: string, path: string, init: { method?: string; json?: unknown; key: string }) => ({
  label,
  run: async (signal: AbortSignal): Promise<Answer> => {
    const res = await fetch(server.url + path, {
      method: init.method ?? "GET",
      headers: { "x-api-key": init.key, "content-type": "application/json" },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
      signal,
    });
    return { label, status: res.status, body: await res.json() };
  },
});

test("hundreds of concurrent requests mixing transactions and plain queries all answer, and the stored result adds up", async () => {
  const { key } = await provision(server.url, ["links:read", "links:write", "webhooks:read", "webhooks:write"]);
  const hook = await api(server.url, "/public-api/v1/webhooks", {
    method: "POST",
    key,
    json: { url: receiver.url, events: ["link.created"] },
  });
  expect(hook.status).toBe(201);
  // A few links to edit and read while the rest is created.
  const seeded: string[] = [];
  for (let i = 0; i < 5; i++) {
    const res = await api(server.url, "/public-api/v1/links", {
      method: "POST",
      key,
      json: { url: `https://example.com/seed/${i}`, title: `seed ${i}`, description: "seed" },
    });
    expect(res.status).toBe(201);
    seeded.push(res.body.data.id);
  }
  const run = crypto.randomUUID().slice(0, 6);
  const requests = [];
  for (let i = 0; i < 120; i++)
    requests.push(
      call(`create ${i}`, "/public-api/v1/links", {
        method: "POST",
        key,
        json: {
          url: `https://example.com/${run}/${i}`,
          title: `link ${i}`,
          description: "x".repeat(200 + (i % 5) * 400),
          tags: [`t${i % 4}`, "load"],
          rules: [{ if: { country: ["DE"] }, url: `https://example.com/${run}/${i}/de` }],
          variants: [
            { url: `https://example.com/${run}/${i}/a`, weight: 60 },
            { url: `https://example.com/${run}/${i}/b`, weight: 40 },
          ],
        },
      }),
    );
  for (let i = 0; i < 60; i++)
    requests.push(
      call(`edit ${i}`, `/public-api/v1/links/${seeded[i % seeded.length]}`, { method: "PATCH", key, json: { title: `edited ${i}` } }),
    );
  for (let i = 0; i < 40; i++)
    requests.push(
      call(`alias ${i}`, "/public-api/v1/links", {
        method: "POST",
        key,
        json: { url: "https://example.com/alias", custom_alias: `race-${run}-${i % 8}`, title: "alias", description: "alias" },
      }),
    );
  for (let i = 0; i < 60; i++) requests.push(call(`read ${i}`, `/public-api/v1/links/${seeded[i % seeded.length]}`, { key }));
  for (let i = 0; i < 40; i++) requests.push(call(`list ${i}`, "/public-api/v1/links?per_page=20", { key }));
  for (let i = requests.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [requests[i], requests[j]] = [requests[j], requests[i]];
  }

  const answers = await allAnswer(requests, 90_000);
  const of = (prefix: string) => answers.filter((a) => a.label.startsWith(`${prefix} `));
  expect(of("create").map((a) => a.status)).toEqual(Array(120).fill(201));
  expect(of("edit").map((a) => a.status)).toEqual(Array(60).fill(200));
  expect(of("read").map((a) => a.status)).toEqual(Array(60).fill(200));
  expect(of("list").map((a) => a.status)).toEqual(Array(40).fill(200));
  // Racing creations of one alias: exactly one wins, the others are told the alias is taken.
  const byAlias = Map.groupBy(of("alias"), (a) => Number(a.label.split(" ")[1]) % 8);
  for (const [, tries] of byAlias) {
    expect(tries.filter((a) => a.status === 201)).toHaveLength(1);
    expect(tries.filter((a) => a.status !== 201).map((a) => [a.status, a.body.error.code])).toEqual(Array(4).fill([409, "ALIAS_TAKEN"]));
  }
  const created = of("create")[7].body.data;
  expect(created.rules).toEqual([{ if: { country: ["DE"] }, url: expect.stringMatching(/\/de$/) }]);
  expect(created.variants).toHaveLength(2);

  // What the database holds: every creation once, and a link.created delivery for each.
  const listed = await api(server.url, "/public-api/v1/links?per_page=1", { key });
  expect(listed.body.meta.total).toBe(1 + 5 + 120 + 8); // provision() made one before the endpoint existed
  const createdIds = new Set([
    ...seeded,
    ...of("create").map((a) => a.body.data.id),
    ...of("alias").flatMap((a) => (a.status === 201 ? [a.body.data.id] : [])),
  ]);
  await receiver.waitFor((all) => new Set(all.map((r) => r.json?.data?.id)).size >= createdIds.size, 60_000);
  const delivered = receiver.received.map((r) => r.json.data.id as string);
  expect(new Set(delivered)).toEqual(createdIds);
}, 180_000);
