// Test apps: a real runtime (real stores) per test file, called in-process or over a loopback server.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, type Config } from "../../server/config";
import { openRuntime, type Runtime, type RuntimeOptions } from "../../server/runtime";
import { freshClickhouseDatabase, freshRedisUrl, preparePostgres, sharedChdb, testClickhouseUrl } from "./stores";
import { serveApp } from "../../server/http/serve";
import type { Tier } from "../../server/tiers";
import { SCOPES } from "../../server/scopes";
import { assertDocumented, ContractViolation, type ContractChecker } from "./contract";
import { checkerFor, preloadContract, violations } from "./fetch-contract";

export const ADMIN_TOKEN = "test-admin-token-0123456789";

export interface TestApp {
  runtime: Runtime;
  config: Config;
  /** In-process request: path relative to the server root. Answers of the public and admin API are checked against the OpenAPI document. */
  request(path: string, init?: RequestInit & { json?: unknown; key?: string }): Promise<Response>;
  /** Like request, returning status, headers and parsed JSON. */
  call(path: string, init?: RequestInit & { json?: unknown; key?: string }): Promise<{ status: number; headers: Headers; body: any }>;
  admin(method: string, path: string, json?: unknown): Promise<{ status: number; body: any }>;
  createAccount(opts?: {
    tier?: Tier;
    scopes?: string[];
    limit_overrides?: Record<string, number>;
    allowed_ips?: string[];
  }): Promise<{ accountId: string; key: string; keyId: string }>;
  /** Moves everything spooled into ClickHouse now. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export async function createTestApp(
  overrides: Partial<Config> = {},
  env: Record<string, string> = {},
  runtimeOptions: RuntimeOptions = {},
): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-test-"));
  const databaseUrl = await preparePostgres(dataDir);
  const redisUrl = env.REDIS_URL ? undefined : await freshRedisUrl();
  const config = loadConfig(
    {
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
      LOG_LEVEL: "error",
      BASE_URL: "http://127.0.0.1:3000",
      CLICKHOUSE_DATABASE: freshClickhouseDatabase(),
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      ...(testClickhouseUrl ? { CLICKHOUSE_URL: testClickhouseUrl } : {}),
      ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
      ...env,
    },
    overrides,
  );
  // Embedded, every app of the process shares one chDB (one directory per process); over HTTP each has its client.
  const sharedClickhouse = config.clickhouse.url ? undefined : await sharedChdb();
  const runtime = await openRuntime(config, { ...runtimeOptions, sharedClickhouse });
  // The documents this app serves, read once (the admin one only while the admin API is on).
  let checkers: Promise<ContractChecker[]> | undefined;
  const contract = () =>
    (checkers ??= (async () => {
      const load = async (path: string, headers: Record<string, string> = {}) => {
        const res = await runtime.app.handle(new Request(`http://127.0.0.1:3000${path}`, { headers }));
        return res.ok ? [checkerFor(await res.text())] : [];
      };
      const admin = config.adminToken ? await load("/admin/v1/openapi.json", { authorization: `Bearer ${config.adminToken}` }) : [];
      return [...(await load("/public-api/v1/docs/json")), ...admin];
    })());
  const request = async (path: string, init: RequestInit & { json?: unknown; key?: string } = {}) => {
    const headers = new Headers(init.headers);
    if (init.key) headers.set("x-api-key", init.key);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set("content-type", "application/json");
      body = JSON.stringify(init.json);
    }
    const req = new Request(`http://127.0.0.1:3000${path}`, { ...init, headers, body });
    const res = await runtime.app.handle(req);
    try {
      await assertDocumented(await contract(), req.method, req.url, res);
    } catch (err) {
      if (err instanceof ContractViolation) violations.push(err);
      throw err;
    }
    return res;
  };
  const call = async (path: string, init: RequestInit & { json?: unknown; key?: string } = {}) => {
    return parsed(await request(path, init));
  };
  const admin = (method: string, path: string, json?: unknown) =>
    call(`/admin/v1${path}`, { method, json, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  return {
    runtime,
    config,
    request,
    call,
    admin,
    async createAccount(opts = {}) {
      const acc = await admin("POST", "/accounts", { name: "test", tier: opts.tier ?? "scale", limit_overrides: opts.limit_overrides });
      if (acc.status !== 201) throw new Error(`create account failed: ${JSON.stringify(acc.body)}`);
      const key = await admin("POST", `/accounts/${acc.body.data.id}/keys`, {
        name: "test",
        scopes: opts.scopes ?? [...SCOPES],
        allowed_ips: opts.allowed_ips,
      });
      if (key.status !== 201) throw new Error(`create key failed: ${JSON.stringify(key.body)}`);
      return { accountId: acc.body.data.id, key: key.body.data.key, keyId: key.body.data.id };
    },
    async flush() {
      for (const s of runtime.deps.streams.all) await s.flush();
    },
    // Each app's DATA_DIR holds a copy of the migrated PGlite (hundreds of MB): a full run would fill the disk.
    async close() {
      await runtime.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Status, headers and the body as JSON (or text when it is not JSON). */
export async function parsed(res: Response): Promise<{ status: number; headers: Headers; body: any }> {
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, headers: res.headers, body };
}

/** A real HTTP server of ours on a loopback port, for tests about HTTP itself. */
export function listen(app: TestApp): { url: string; stop(): Promise<void> } {
  const server = serveApp(app.runtime, { port: 0, hostname: "127.0.0.1" });
  const port = server.port;
  preloadContract(`http://127.0.0.1:${port}`);
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      await server.stop();
    },
  };
}
