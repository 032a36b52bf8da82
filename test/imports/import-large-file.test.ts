// A 200 MB file of a million and one rows, sent over HTTP to a real server process: streamed to disk and
// read in constant memory (the process's resident memory grows far less than the file), then refused
// whole because the Scale tier takes at most 1,000,000 rows, the limit named; nothing is created or kept.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { childEnv, sharedStoresEnv } from "../helpers/stores";
import { freePort } from "../helpers/server-process";

const ROOT = join(import.meta.dir, "..", "..");
const ROWS = 1_000_001;

const started: ReturnType<typeof Bun.spawn>[] = [];
afterAll(() => {
  for (const p of started) if (p.exitCode === null) p.kill("SIGKILL");
});

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;

test("a 200 MB file over the tier's rows: streamed in constant memory, refused with the limit named, nothing kept", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-import-large-"));
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const stores = await sharedStoresEnv();
  const proc = Bun.spawn([process.execPath, join(ROOT, "server/main.ts")], {
    env: childEnv({ ...stores, DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1", BASE_URL: url, LOG_LEVEL: "error" }),
    stdout: "ignore",
    stderr: "inherit",
  });
  started.push(proc);
  for (let i = 0; i < 1200; i++) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {}
    await Bun.sleep(100);
  }
  const key = readFileSync(join(dataDir, "dev-key.txt"), "utf8").trim();

  // The file, written in pieces: about 200 bytes a row.
  const fileDir = mkdtempSync(join(tmpdir(), "svc-import-file-"));
  const path = join(fileDir, "big.csv");
  const writer = Bun.file(path).writer();
  writer.write("url,title\n");
  const pad = "x".repeat(165);
  for (let i = 0; i < ROWS; i++) writer.write(`https://example.com/${pad}/${i},"Page ${i}, quoted"\n`);
  await writer.end();
  const size = statSync(path).size;
  expect(size).toBeGreaterThan(200 * 1024 * 1024);

  await fetch(`${url}/public-api/v1/imports`, { headers: { "x-api-key": key } }); // the route warmed up
  // The process's resident memory, sampled through the upload (its peak since start is the start's own).
  const before = rssMb(proc.pid);
  let most = before;
  const t0 = Date.now();
  const sampler = setInterval(() => {
    most = Math.max(most, rssMb(proc.pid));
    if (process.env.TRACE) {
      let f = "-";
      try {
        f = String(readdirSync(join(dataDir, "imports")).map((n) => statSync(join(dataDir, "imports", n)).size >> 20));
      } catch {}
      console.log(Date.now() - t0, rssMb(proc.pid).toFixed(0), f);
    }
  }, 500);
  const res = await fetch(`${url}/public-api/v1/imports`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "text/csv" },
    body: Bun.file(path),
  });
  const body = (await res.json()) as any;
  clearInterval(sampler);
  const grew = most - before;
  expect(res.status).toBe(400);
  expect(body.error.message).toContain("more than 1,000,000 rows");
  expect(body.error.message).toContain("scale tier");
  // Held whole, the file alone would add 200 MB (and its decoded text twice that).
  expect(grew).toBeLessThan(100);
  console.log(`resident memory grew at most ${grew.toFixed(0)} MB over a ${(size / 1048576).toFixed(0)} MB upload`);

  const imports = (await (await fetch(`${url}/public-api/v1/imports`, { headers: { "x-api-key": key } })).json()) as any;
  expect(imports.data).toEqual([]);
  expect(readdirSync(join(dataDir, "imports"))).toEqual([]);
  proc.kill("SIGTERM");
  await proc.exited;
  rmSync(fileDir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
}, 300_000);
