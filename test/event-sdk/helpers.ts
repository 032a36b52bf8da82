// Shared by the event SDK tests: a real server of ours on loopback (in-process runtime, real stores),
// accounts and links made through its APIs, and counting what ClickHouse stored, read back through
// the journey events API.
import { createTestApp, listen, type TestApp } from "../helpers/app";

export { until } from "../helpers/until";

export interface SdkServer {
  t: TestApp;
  url: string;
  stop(): Promise<void>;
}

export async function startSdkServer(overrides: Parameters<typeof createTestApp>[0] = {}): Promise<SdkServer> {
  const t = await createTestApp(overrides);
  const server = listen(t);
  return {
    t,
    url: server.url,
    async stop() {
      await server.stop();
      await t.close();
    },
  };
}

/** An account with a key and a link; `scopes` defaults to everything. */
export async function accountWithLink(t: TestApp, opts: Parameters<TestApp["createAccount"]>[0] = {}) {
  const acc = await t.createAccount(opts);
  const link = await t.call("/public-api/v1/links", {
    method: "POST",
    key: acc.key,
    json: { url: "https://example.com/app", title: "App", description: "SDK test" },
  });
  if (link.status !== 201) throw new Error(`link not created: ${JSON.stringify(link.body)}`);
  return { ...acc, linkId: link.body.data.id as string };
}

/** Every stored event of the link (last 24 hours), oldest first, after flushing the spool. */
export async function storedEvents(t: TestApp, key: string, linkId: string): Promise<any[]> {
  await t.flush();
  return readEvents(t.call.bind(t), key, linkId);
}

type Call = (path: string, init?: RequestInit & { key?: string }) => Promise<{ status: number; body: any }>;

export async function readEvents(call: Call, key: string, linkId: string): Promise<any[]> {
  const all: any[] = [];
  for (let page = 1; ; page++) {
    const res = await call(`/public-api/v1/journey/links/${linkId}/events?period=24h&limit=200&page=${page}`, { key });
    if (res.status !== 200) throw new Error(`events API answered ${res.status}: ${JSON.stringify(res.body)}`);
    all.push(...res.body.data);
    if (page >= res.body.meta.total_pages) break;
  }
  return all.reverse();
}

/** How many times each `properties.seq` was stored. */
export function countBySeq(events: any[]): Map<number, number> {
  const counts = new Map<number, number>();
  for (const e of events) counts.set(e.properties.seq, (counts.get(e.properties.seq) ?? 0) + 1);
  return counts;
}

export const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
