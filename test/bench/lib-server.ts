// Helpers for benchmarks: start our server as a child process with its own DATA_DIR, and run wrk.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");

export async function startServer(port: number, env: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-bench-"));
  // BENCH_BUN_FLAGS: flags for the server's bun (e.g. --smol), as an operator's start command would pass them.
  const flags = (process.env.BENCH_BUN_FLAGS ?? "").split(" ").filter(Boolean);
  const proc = Bun.spawn([process.execPath, ...flags, join(ROOT, "server/main.ts")], {
    // A minimal environment: the developer's own variables (a DATABASE_URL, say) must not reach the server.
    env: {
      PATH: process.env.PATH ?? "",
      ...(process.env.HOME ? { HOME: process.env.HOME } : {}),
      ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
      // As the container image and `npm start` run it (docs/operations.md#memory).
      BUN_JSC_forceRAMSize: process.env.BUN_JSC_forceRAMSize ?? "536870912",
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      BASE_URL: `http://127.0.0.1:${port}`,
      ADMIN_TOKEN: "bench-admin-token-0123456789",
      ...env,
    },
    stdout: "ignore",
    stderr: "inherit",
  });
  const url = `http://127.0.0.1:${port}`;
  // Up to 5 minutes: a first start (PGlite's initdb) on a machine shared with other work can take long.
  for (let i = 0; i < 3000; i++) {
    // Never measure someone else's server on the same port.
    if (proc.exitCode !== null) throw new Error(`the server on port ${port} exited (${proc.exitCode}); is the port in use?`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {}
    await Bun.sleep(100);
  }
  // Embedded Postgres writes a dev key on first start; with a Postgres server, an account is made here.
  const key = existsSync(join(dataDir, "dev-key.txt"))
    ? readFileSync(join(dataDir, "dev-key.txt"), "utf8").trim()
    : await benchAccountKey(url);
  return {
    url,
    key,
    dataDir,
    proc,
    stop: async (opts: { keepData?: boolean } = {}) => {
      proc.kill("SIGTERM");
      await proc.exited;
      if (!opts.keepData) rmSync(dataDir, { recursive: true, force: true });
    },
    removeData: () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

/** A baseline server of the bench's own (lib-bare-*.ts) as a child process on `port`, once it answers. */
export async function startBare(script: string, port: number) {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, script), String(port)], {
    env: { PATH: process.env.PATH ?? "" },
    stdout: "ignore",
    stderr: "inherit",
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    if (proc.exitCode !== null) throw new Error(`${script} on port ${port} exited (${proc.exitCode}); is the port in use?`);
    try {
      await fetch(url, { method: "POST", redirect: "manual" });
      break;
    } catch {
      await Bun.sleep(50);
    }
  }
  return { url, proc, stop: () => (proc.kill(), proc.exited) };
}

/** Resident and peak resident memory of a process in MB, from /proc (NaN elsewhere). */
export function memoryMb(pid: number): { rss: number; peak: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
    return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
  } catch {
    return { rss: Number.NaN, peak: Number.NaN };
  }
}

/** CPU seconds (user + system, every thread) a process has used so far, from /proc (Linux; NaN elsewhere). */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return NaN;
  }
}

async function benchAccountKey(url: string): Promise<string> {
  const admin = (path: string, json: unknown) =>
    fetch(`${url}/admin/v1${path}`, {
      method: "POST",
      headers: { authorization: "Bearer bench-admin-token-0123456789", "content-type": "application/json" },
      body: JSON.stringify(json),
    }).then((r) => r.json() as Promise<{ data: { id: string; key: string } }>);
  const account = await admin("/accounts", { name: "bench", tier: "scale" });
  const key = await admin(`/accounts/${account.data.id}/keys`, {
    name: "bench",
    scopes: ["links:read", "links:write", "analytics:read", "journey:write", "journey:read"],
  });
  return key.data.key;
}

export interface WrkResult {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  errors: number;
}

const toMs = (v: string) => {
  const n = parseFloat(v);
  return v.endsWith("us") ? n / 1000 : v.endsWith("ms") ? n : v.endsWith("s") ? n * 1000 : n;
};

export const BROWSER_UA =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15";

function wrkArgs(url: string, opts: WrkOptions): string[] {
  if (!Bun.which("wrk")) throw new Error("wrk is not installed: apt-get install wrk");
  const args = ["wrk", `-t${opts.threads ?? 1}`, `-c${opts.connections}`, `-d${opts.seconds}s`, "--latency"];
  for (const [k, v] of Object.entries(opts.headers ?? { "User-Agent": BROWSER_UA })) args.push("-H", `${k}: ${v}`);
  if (opts.script) args.push("-s", opts.script);
  return [...args, url];
}

function parseWrk(out: string): WrkResult {
  const pct = (p: string) => toMs(new RegExp(`^\\s*${p}%\\s+(\\S+)`, "m").exec(out)?.[1] ?? "0");
  const errors = /Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? "0";
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return {
    rps: parseFloat(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? "0"),
    p50: pct("50"),
    p99: pct("99"),
    requests: Number(/(\d+) requests in/.exec(out)?.[1] ?? 0),
    errors:
      Number(errors) +
      (socketErrors
        ? socketErrors
            .slice(1)
            .map(Number)
            .reduce((a, b) => a + b, 0)
        : 0),
  };
}

interface WrkOptions {
  connections: number;
  seconds: number;
  threads?: number;
  script?: string;
  headers?: Record<string, string>;
}

export function wrk(url: string, opts: WrkOptions): WrkResult {
  return parseWrk(Bun.spawnSync(wrkArgs(url, opts)).stdout.toString());
}

/** wrk without blocking, so that several can load several servers at once. */
export async function wrkAsync(url: string, opts: WrkOptions): Promise<WrkResult> {
  const p = Bun.spawn(wrkArgs(url, opts), { stdout: "pipe", stderr: "inherit" });
  const out = await new Response(p.stdout).text();
  await p.exited;
  return parseWrk(out);
}

export const table = (rows: Record<string, string | number>[]) => {
  const cols = Object.keys(rows[0]);
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (vals: string[]) => "| " + vals.map((v, i) => v.padEnd(width[i])).join(" | ") + " |";
  console.log(line(cols));
  console.log("|" + width.map((w) => "-".repeat(w + 2)).join("|") + "|");
  for (const r of rows) console.log(line(cols.map((c) => String(r[c]))));
};
