// The stand-in as tests use it: its own process (chDB binds one data directory per process, and
// several service instances must be able to share it), started on a free loopback port.
import { join } from "node:path";
import type { Subprocess } from "bun";

const ENTRY = join(import.meta.dir, "..", "clickhouse-http.ts");

export interface ClickhouseHttpProcess {
  url: string;
  process: Subprocess;
  /** SIGTERM, and wait for the exit. */
  stop(): Promise<void>;
}

export async function spawnClickhouseHttp(opts: {
  path: string;
  user?: string;
  password?: string;
  profile?: Record<string, string>;
  /** A port of its own (a restart where the last one listened); default any free port. */
  port?: number;
}): Promise<ClickhouseHttpProcess> {
  const args = ["--port", String(opts.port ?? 0), "--path", opts.path];
  if (opts.user !== undefined) args.push("--user", opts.user, "--password", opts.password ?? "");
  for (const [name, value] of Object.entries(opts.profile ?? {})) args.push("--setting", `${name}=${value}`);
  const child = Bun.spawn([process.execPath, ENTRY, ...args], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", TZ: "UTC" },
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = child.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the ClickHouse stand-in exited (${await child.exited}) before printing its URL`);
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return {
    url: text.trim().split("\n")[0],
    process: child,
    async stop() {
      child.kill("SIGTERM");
      await child.exited;
    },
  };
}
