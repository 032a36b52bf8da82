// Our server as a child process (spawnServer: `bun server/main.ts`, an explicit minimal environment)
// with its own DATA_DIR and a free loopback port, for tests that attack it as an outsider would. Its
// stdout (the error log) is kept, so a test can check that nothing unexpected was logged.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { preparePostgres } from "../helpers/stores";
import { freePort, spawnServer } from "../helpers/server-process";
import { SCOPES } from "../../server/scopes";

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

export async function startServerProcess(env: Record<string, string> = {}): Promise<ServerProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-hostile-"));
  const databaseUrl = await preparePostgres(dataDir);
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const log: string[] = [];
  const proc = spawnServer(
    {
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      BASE_URL: url,
      ADMIN_TOKEN,
      LOG_LEVEL: "error",
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      ...env,
    },
    log,
  );

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
