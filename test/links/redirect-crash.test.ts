// The redirect answers only after its click record is written: kill -9 the server in the middle of a
// stream of redirects, restart it, and every 302 the client received has its click in ClickHouse.
import { afterAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { childEnv, sharedStoresEnv } from "../helpers/stores";
import { freePort } from "../helpers/server-process";
import { processTempDir } from "../helpers/temp-dirs";

const ROOT = join(import.meta.dir, "..", "..");
const UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120 Safari/537.36";

const started: ReturnType<typeof Bun.spawn>[] = [];
afterAll(() => {
  for (const p of started) if (p.exitCode === null) p.kill("SIGKILL"); // a failed test leaves no server behind
});

function start(dataDir: string, port: number, stores: Record<string, string>) {
  const proc = Bun.spawn([process.execPath, join(ROOT, "server/main.ts")], {
    env: childEnv({
      ...stores,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      BASE_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: "error",
    }),
    stdout: "ignore",
    stderr: "inherit",
  });
  started.push(proc);
  return proc;
}

async function ready(url: string) {
  for (let i = 0; i < 1200; i++) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {}
    await Bun.sleep(100);
  }
  throw new Error("server did not start");
}

test("kill -9 during a stream of redirects: every 302 received has its click", async () => {
  const dataDir = processTempDir("svc-redirect-crash-");
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  // Both processes share ClickHouse (a server in the servers pass); Postgres stays embedded for the dev key.
  const stores = await sharedStoresEnv();
  let proc = start(dataDir, port, stores);
  await ready(url);
  const key = readFileSync(join(dataDir, "dev-key.txt"), "utf8").trim();
  const headers = { "x-api-key": key, "content-type": "application/json" };
  const link = (await (
    await fetch(`${url}/public-api/v1/links`, {
      method: "POST",
      headers,
      body: JSON.stringify({ url: "https://example.com/crash", title: "t", description: "d" }),
    })
  ).json()) as any;

  let received = 0;
  let stop = false;
  const client = async () => {
    while (!stop) {
      try {
        const res = await fetch(`${url}/${link.data.short_code}`, { redirect: "manual", headers: { "user-agent": UA } });
        if (res.status === 302) received++;
      } catch {
        return; // the server is gone
      }
    }
  };
  const clients = Array.from({ length: 16 }, client);
  await Bun.sleep(1500);
  proc.kill("SIGKILL");
  stop = true;
  await Promise.all(clients);
  await proc.exited;
  expect(received).toBeGreaterThan(100);

  proc = start(dataDir, port, stores);
  await ready(url);
  let total = 0;
  for (let i = 0; i < 150 && total < received; i++) {
    await Bun.sleep(200);
    total = ((await (await fetch(`${url}/public-api/v1/links/${link.data.id}/stats`, { headers })).json()) as any).data.total_clicks;
  }
  proc.kill("SIGTERM");
  await proc.exited;
  // Every received 302 has a click; a click may exist for a response the kill cut off on its way out.
  expect(total).toBeGreaterThanOrEqual(received);
  expect(total).toBeLessThanOrEqual(received + 16);
}, 300_000);
