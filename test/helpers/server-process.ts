// Our server as a child process (server/main.ts in its own DATA_DIR: embedded stores, or in the servers
// passes of CI the Postgres, Redis and ClickHouse servers), for tests that kill it with SIGKILL and start
// it again on the same port and data.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { childEnv, preparePostgres, sharedStoresEnv } from "./stores";

export const ADMIN = "crash-admin-token-0123456789";
const ROOT = join(import.meta.dir, "..", "..");

export interface ServerProcess {
  url: string;
  dataDir: string;
  start(): Promise<void>;
  /** SIGKILL, then waits for the process to be gone. */
  kill9(): Promise<void>;
  /** SIGTERM: a clean shutdown that drains the spool into ClickHouse. */
  stop(): Promise<void>;
  remove(): void;
}

function freePort(): number {
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const p = s.port!;
  s.stop(true);
  return p;
}

export function serverProcess(env: Record<string, string> = {}): ServerProcess {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-proc-"));
  const port = freePort();
  let child: Subprocess | null = null;
  const url = `http://127.0.0.1:${port}`;
  // The stores every restart shares: made once, on the first start.
  let stores: Promise<Record<string, string>> | undefined;
  return {
    url,
    dataDir,
    async start() {
      child = Bun.spawn([process.execPath, join(ROOT, "server/main.ts")], {
        cwd: ROOT,
        // An explicit, minimal environment: nothing of the developer's leaks in.
        env: childEnv({
          ...(await (stores ??= preparePostgres(dataDir).then(sharedStoresEnv))),
          DATA_DIR: dataDir,
          PORT: String(port),
          HOST: "127.0.0.1",
          ADMIN_TOKEN: ADMIN,
          LOG_LEVEL: "error",
          SPOOL_FLUSH_MS: "100",
          ...env,
        }),
        stdout: "ignore",
        stderr: "inherit",
      });
      const proc = child;
      for (let i = 0; i < 1200; i++) {
        if (proc.exitCode !== null) throw new Error(`server exited with ${proc.exitCode}`);
        try {
          if ((await fetch(`${url}/healthz`)).ok) return;
        } catch {}
        await Bun.sleep(50);
      }
      throw new Error("server did not start");
    },
    async kill9() {
      child?.kill(9);
      await child?.exited;
      child = null;
    },
    async stop() {
      child?.kill("SIGTERM");
      await child?.exited;
      child = null;
    },
    remove() {
      child?.kill(9);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** JSON over HTTP to the server: the admin API with the bearer, the public API with a key. */
export async function api(base: string, path: string, init: { method?: string; json?: unknown; key?: string; admin?: boolean } = {}) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (init.key) headers["x-api-key"] = init.key;
  if (init.admin) headers.authorization = `Bearer ${ADMIN}`;
  const res = await fetch(base + path, {
    method: init.method ?? "GET",
    headers,
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

/** An account, a key for the given scopes, and a link, made through the APIs. */
export async function provision(base: string, scopes = ["journey:write", "journey:read", "links:write"]) {
  const account = await api(base, "/admin/v1/accounts", { method: "POST", admin: true, json: { name: "proc", tier: "scale" } });
  const created = await api(base, `/admin/v1/accounts/${account.body.data.id}/keys`, {
    method: "POST",
    admin: true,
    json: { name: "app", scopes },
  });
  const key: string = created.body.data.key;
  const link = await api(base, "/public-api/v1/links", {
    method: "POST",
    key,
    json: { url: "https://example.com/app", title: "App", description: "child process test" },
  });
  if (link.status !== 201) throw new Error(`link: ${JSON.stringify(link.body)}`);
  return { accountId: account.body.data.id as string, key, linkId: link.body.data.id as string };
}
