// Our server as a child process (`bun server/main.ts`) with its own DATA_DIR, a free loopback port and
// an explicit minimal environment, for tests that attack it as an outsider would. Its stdout (the
// error log) is kept, so a test can check that nothing unexpected was logged.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { preparePostgres } from "../helpers/stores";
import { SCOPES } from "../../server/scopes";

const ROOT = join(import.meta.dir, "..", "..");
export const ADMIN_TOKEN = "hostile-suite-admin-token-0123456789";

export interface ServerProcess {
  url: string;
  port: number;
  dataDir: string;
  /** Lines the server wrote to stdout and stderr so far. */
  log: string[];
  admin(method: string, path: string, json?: unknown): Promise<{ status: number; body: any }>;
  /** A new account of the given tier and an all-scopes key. */
  account(tier?: string): Promise<{ id: string; key: string }>;
  healthy(): Promise<boolean>;
  /** Log lines that report an error we did not cause on purpose (unhandled errors, uncaught exceptions). */
  unexpectedErrors(): string[];
  stop(): Promise<void>;
}

/** A port nobody listens on right now (the child binds it a moment later). */
export function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

export async function startServerProcess(env: Record<string, string> = {}): Promise<ServerProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-hostile-"));
  const databaseUrl = await preparePostgres(dataDir);
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const proc = Bun.spawn([process.execPath, join(ROOT, "server/main.ts")], {
    cwd: ROOT,
    env: {
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      BASE_URL: url,
      ADMIN_TOKEN,
      LOG_LEVEL: "error",
      TZ: "UTC",
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      ...env,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const log: string[] = [];
  void collect(proc.stdout, log);
  void collect(proc.stderr, log);

  const server: ServerProcess = {
    url,
    port,
    dataDir,
    log,
    async admin(method, path, json) {
      const res = await fetch(`${url}/admin/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        body: json === undefined ? undefined : JSON.stringify(json),
      });
      return { status: res.status, body: await res.json() };
    },
    async account(tier = "scale") {
      const acc = await server.admin("POST", "/accounts", { name: "hostile", tier });
      const key = await server.admin("POST", `/accounts/${acc.body.data.id}/keys`, {
        name: "hostile",
        scopes: [...SCOPES],
      });
      if (key.status !== 201) throw new Error(`key: ${JSON.stringify(key.body)}`);
      return { id: acc.body.data.id, key: key.body.data.key };
    },
    async healthy() {
      try {
        const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(30_000) });
        return res.status === 200 && (await res.json()).data.status === "ok";
      } catch {
        return false;
      }
    },
    unexpectedErrors: () => log.filter((l) => /unhandled error|uncaught exception|unhandled promise rejection|panic|Segmentation/i.test(l)),
    async stop() {
      proc.kill("SIGTERM");
      const exited = await Promise.race([proc.exited, Bun.sleep(60_000).then(() => null)]);
      if (exited === null) proc.kill("SIGKILL");
    },
  };
  for (let i = 0; i < 1200; i++) {
    if (proc.exitCode !== null) throw new Error(`server exited at start-up (${proc.exitCode}):\n${log.join("\n")}`);
    if (log.some((l) => l.includes('"msg":"listening"')) && (await server.healthy())) return server;
    await Bun.sleep(100);
  }
  throw new Error(`server did not start:\n${log.join("\n")}`);
}

async function collect(stream: ReadableStream<Uint8Array>, into: string[]) {
  const decoder = new TextDecoder();
  let pending = "";
  for await (const chunk of stream) {
    pending += decoder.decode(chunk, { stream: true });
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    into.push(...lines.filter(Boolean));
  }
  if (pending) into.push(pending);
}
