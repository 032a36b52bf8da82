// An import survives kill -9: the server is killed while the job is half way through a file, a new
// process resumes at the first row not done, and every row ends up as exactly one link.
import { afterAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { childEnv, sharedStoresEnv } from "../helpers/stores";
import { freePort } from "../helpers/server-process";
import { processTempDir } from "../helpers/temp-dirs";

const ROOT = join(import.meta.dir, "..", "..");
const ROWS = 12_000;

const started: ReturnType<typeof Bun.spawn>[] = [];
afterAll(() => {
  for (const p of started) if (p.exitCode === null) p.kill("SIGKILL");
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

test("kill -9 half way through an import: the restarted server finishes it, every row one link", async () => {
  const dataDir = processTempDir("svc-import-crash-");
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const stores = await sharedStoresEnv();
  let proc = start(dataDir, port, stores);
  await ready(url);
  const key = readFileSync(join(dataDir, "dev-key.txt"), "utf8").trim();
  const csv = `url,slug,title\n${Array.from({ length: ROWS }, (_, i) => `https://example.com/p/${i},crash-${i},Page ${i}`).join("\n")}\n`;
  const posted = (await (
    await fetch(`${url}/public-api/v1/imports`, { method: "POST", headers: { "x-api-key": key, "content-type": "text/csv" }, body: csv })
  ).json()) as any;
  expect(posted.data).toMatchObject({ total: ROWS, source: "generic" });
  const status = async () =>
    ((await (await fetch(`${url}/public-api/v1/imports/${posted.data.id}`, { headers: { "x-api-key": key } })).json()) as any).data;

  // Wait for the job to be part way through, then kill the process in the middle of its work.
  let before: any;
  for (let i = 0; i < 600; i++) {
    before = await status();
    if (before.processed > 0) break;
    await Bun.sleep(50);
  }
  expect(before.processed).toBeGreaterThan(0);
  expect(before.processed).toBeLessThan(ROWS);
  proc.kill("SIGKILL");
  await proc.exited;

  proc = start(dataDir, port, stores);
  await ready(url);
  let after: any;
  for (let i = 0; i < 1200; i++) {
    after = await status();
    if (after.status === "completed") break;
    await Bun.sleep(100);
  }
  expect(after).toMatchObject({ status: "completed", total: ROWS, processed: ROWS, created: ROWS, skipped: 0, failed: 0 });
  const list = (await (
    await fetch(`${url}/public-api/v1/links?per_page=1&search=crash-`, { headers: { "x-api-key": key } })
  ).json()) as any;
  expect(list.meta.total).toBe(ROWS);
  proc.kill("SIGTERM");
  await proc.exited;
}, 240_000);
