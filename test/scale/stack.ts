// Real shared stores and real instances of the service as child processes, for the scale-out tests and
// the `scale` benchmark: a Postgres server (CI's when SVC_TEST_DATABASE_URL is set, else a private one
// made with initdb as the `postgres` user), a redis-server, one ClickHouse HTTP endpoint (the stand-in
// over chDB, test/support/clickhouse-http.ts), and `bun server/main.ts` with an explicit environment.
import { chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { spawnClickhouseHttp } from "../support/clickhouse-http/spawn";
import { childEnv, freshServerDatabase } from "../helpers/stores";
import { freePort } from "../helpers/server-process";

const ROOT = join(import.meta.dir, "..", "..");
export const ADMIN_TOKEN = "scale-admin-token-0123456789";

export interface Service {
  url: string;
  /** The processes serving it now (for CPU accounting); empty when not ours. */
  pids(): number[];
  stop(): Promise<void>;
}

/** A process and its children (Postgres forks a backend per connection). */
function withChildren(pid: number): number[] {
  const all = [pid];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid) all.push(Number(entry));
    } catch {} // exited meanwhile
  }
  return all;
}

/** The lines a child prints, and a way to wait for one. */
function watchLines(stream: ReadableStream<Uint8Array>, into: string[]) {
  const waiters: { test: (line: string) => boolean; resolve: (line: string) => void }[] = [];
  void (async () => {
    let buffer = "";
    for await (const chunk of stream) {
      buffer += new TextDecoder().decode(chunk);
      const lines = buffer.split("\n");
      buffer = lines.pop()!;
      for (const line of lines) {
        into.push(line);
        for (const w of [...waiters]) {
          if (!w.test(line)) continue;
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
      }
    }
  })();
  return (test: (line: string) => boolean, child: Subprocess, what: string, timeoutMs = 60_000) =>
    new Promise<string>((resolve, reject) => {
      const found = into.find(test);
      if (found) return resolve(found);
      const timer = setTimeout(() => reject(new Error(`${what}: not ready in ${timeoutMs} ms\n${into.slice(-20).join("\n")}`)), timeoutMs);
      waiters.push({
        test,
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
      });
      void child.exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`${what} exited (${code}) before it was ready\n${into.slice(-20).join("\n")}`));
      });
    });
}

const baseEnv = () => childEnv({ TMPDIR: tmpdir() });

/** A fresh Postgres database: on CI's server when SVC_TEST_DATABASE_URL is set, else on a private server. */
export async function startPostgres(): Promise<Service> {
  const shared = process.env.SVC_TEST_DATABASE_URL;
  if (shared) return { url: await freshServerDatabase(shared, "svc_scale"), pids: () => [], stop: async () => {} };
  const bin = readdirSync("/usr/lib/postgresql")
    .sort()
    .map((v) => join("/usr/lib/postgresql", v, "bin"))
    .pop();
  if (!bin) throw new Error("no Postgres server under /usr/lib/postgresql (apt-get install postgresql)");
  const root = mkdtempSync(join(tmpdir(), "svc-scale-pg-"));
  const uid = Number(Bun.spawnSync(["id", "-u", "postgres"], { env: baseEnv() }).stdout.toString().trim());
  const gid = Number(Bun.spawnSync(["id", "-g", "postgres"], { env: baseEnv() }).stdout.toString().trim());
  chownSync(root, uid, gid);
  const port = freePort();
  // Postgres refuses to run as root: initdb and pg_ctl run as `postgres`.
  const asPg = (cmd: string) => {
    const p = Bun.spawnSync(["su", "postgres", "-s", "/bin/sh", "-c", cmd], { env: baseEnv(), stderr: "pipe", stdout: "pipe" });
    if (p.exitCode !== 0) throw new Error(`${cmd}: ${p.stderr.toString()}`);
  };
  asPg(`${bin}/initdb -D ${root}/data -A trust -U postgres --no-sync >/dev/null`);
  asPg(
    `${bin}/pg_ctl -D ${root}/data -l ${root}/log -w -o "-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" start >/dev/null`,
  );
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    pids: () => withChildren(Number(readFileSync(`${root}/data/postmaster.pid`, "utf8").split("\n")[0])),
    stop: async () => asPg(`${bin}/pg_ctl -D ${root}/data -m immediate stop >/dev/null`),
  };
}

export async function startRedis(): Promise<Service> {
  const bin = Bun.which("redis-server");
  if (!bin) throw new Error("redis-server is not installed (apt-get install redis-server; .ci/run does it)");
  const port = freePort();
  const child = Bun.spawn([bin, "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
    env: baseEnv(),
    stdout: "pipe",
    stderr: "inherit",
  });
  const lines: string[] = [];
  await watchLines(child.stdout, lines)((l) => l.includes("Ready to accept connections"), child, "redis-server", 20_000);
  return {
    url: `redis://127.0.0.1:${port}`,
    pids: () => [child.pid],
    stop: async () => {
      child.kill();
      await child.exited;
    },
  };
}

/** One ClickHouse HTTP endpoint that several instances share (the chDB stand-in, in its own process). */
export async function startClickhouse(): Promise<Service> {
  const ch = await spawnClickhouseHttp({ path: mkdtempSync(join(tmpdir(), "svc-scale-ch-")) });
  return { url: ch.url.replace(/\/$/, ""), pids: () => [ch.process.pid], stop: () => ch.stop() };
}

export interface Stores {
  services?: { postgres: Service; redis: Service; clickhouse: Service };
  databaseUrl: string;
  clickhouseUrl: string;
  clickhouseDatabase: string;
  redisUrl: string;
  appSecret: string;
}

export async function startStores(): Promise<Stores & { stop(): Promise<void> }> {
  const [pg, redis, ch] = await Promise.all([startPostgres(), startRedis(), startClickhouse()]);
  return {
    services: { postgres: pg, redis, clickhouse: ch },
    databaseUrl: pg.url,
    redisUrl: redis.url,
    clickhouseUrl: ch.url,
    clickhouseDatabase: `scale_${crypto.randomUUID().replaceAll("-", "").slice(0, 10)}`,
    appSecret: crypto.randomUUID() + crypto.randomUUID(),
    async stop() {
      await Promise.allSettled([ch.stop(), redis.stop(), pg.stop()]);
    },
  };
}

/** One instance of the service: `bun server/main.ts` on a fixed port and its own DATA_DIR. */
export class Instance {
  readonly port = freePort();
  readonly url = `http://127.0.0.1:${this.port}`;
  readonly dataDir: string;
  private child: Subprocess<"ignore", "pipe", "inherit"> | null = null;
  get pid(): number | undefined {
    return this.child?.pid;
  }
  readonly log: string[] = [];

  constructor(
    readonly name: string,
    private readonly stores: Stores,
    private readonly extraEnv: Record<string, string> = {},
  ) {
    this.dataDir = mkdtempSync(join(tmpdir(), `svc-scale-${name}-`));
    mkdirSync(this.dataDir, { recursive: true });
  }

  get env(): Record<string, string> {
    return {
      ...baseEnv(),
      PORT: String(this.port),
      HOST: "127.0.0.1",
      BASE_URL: this.url,
      DATA_DIR: this.dataDir,
      DATABASE_URL: this.stores.databaseUrl,
      CLICKHOUSE_URL: this.stores.clickhouseUrl,
      CLICKHOUSE_DATABASE: this.stores.clickhouseDatabase,
      REDIS_URL: this.stores.redisUrl,
      APP_SECRET: this.stores.appSecret,
      ADMIN_TOKEN,
      WEBHOOK_ALLOW_INSECURE: "true",
      LOG_LEVEL: "error",
      ...this.extraEnv,
    };
  }

  async start(): Promise<void> {
    const child = Bun.spawn([process.execPath, join(ROOT, "server/main.ts")], {
      env: this.env,
      stdout: "pipe",
      stderr: "inherit",
      cwd: ROOT,
    });
    this.child = child;
    await watchLines(child.stdout, this.log)((l) => l.includes('"msg":"listening"'), child, `instance ${this.name}`, 90_000);
  }

  /** kill -9: nothing is flushed, closed or answered. */
  async kill(): Promise<void> {
    this.child?.kill("SIGKILL");
    await this.child?.exited;
    this.log.length = 0;
  }

  /** SIGTERM: stop accepting, drain the spools into ClickHouse, exit. */
  async stop(): Promise<void> {
    if (!this.child) return;
    this.child.kill("SIGTERM");
    const code = await this.child.exited;
    this.child = null;
    if (code !== 0) throw new Error(`instance ${this.name} exited ${code} on SIGTERM`);
  }
}
