import { describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, ConfigError, multiInstanceCheck } from "../../server/config";
import { childEnv } from "../helpers/child-env";

const dataDir = () => mkdtempSync(join(tmpdir(), "svc-config-"));

describe("config", () => {
  test("defaults are the documented ones", () => {
    const c = loadConfig({ DATA_DIR: dataDir() });
    expect(c.port).toBe(3000);
    expect(c.host).toBe("0.0.0.0");
    expect(c.baseUrl).toBe("http://localhost:3000");
    expect(c.cdnUrl).toBe("http://localhost:3000/cdn");
    expect(c.webhookRetryDelaysMs).toEqual([30000, 120000, 480000]);
    expect(c.trustProxy).toBe(false);
    expect(c.appSecret.length).toBeGreaterThanOrEqual(32);
    expect(c.clickhouse.queryTimeoutMs).toBe(15_000);
    expect(loadConfig({ DATA_DIR: dataDir(), CLICKHOUSE_QUERY_TIMEOUT_MS: "0" }).clickhouse.queryTimeoutMs).toBe(0);
    // Embedded chDB runs one bound query at a time: a job query there holds the reports back, so a minute at most.
    expect(c.clickhouse.jobQueryTimeoutMs).toBe(60_000);
    expect(loadConfig({ DATA_DIR: dataDir(), CLICKHOUSE_URL: "http://127.0.0.1:8123" }).clickhouse.jobQueryTimeoutMs).toBe(600_000);
    expect(loadConfig({ DATA_DIR: dataDir(), CLICKHOUSE_JOB_QUERY_TIMEOUT_MS: "3600000" }).clickhouse.jobQueryTimeoutMs).toBe(3_600_000);
  });

  test("the generated APP_SECRET is stable across starts", () => {
    const dir = dataDir();
    expect(loadConfig({ DATA_DIR: dir }).appSecret).toBe(loadConfig({ DATA_DIR: dir }).appSecret);
  });

  test.each([
    ["PORT", "eighty"],
    ["PORT", "70000"],
    ["BASE_URL", "localhost:3000"],
    ["DATABASE_URL", "mysql://x"],
    ["TRUST_PROXY", "yes"],
    ["WEBHOOK_RETRY_DELAYS_MS", "30s,2m"],
    ["CLICKHOUSE_DATABASE", "svc; drop"],
    ["CLICKHOUSE_QUERY_TIMEOUT_MS", "15s"],
    ["CLICKHOUSE_JOB_QUERY_TIMEOUT_MS", "10m"],
  ])("a bad %s stops start-up with a message naming it", (name, value) => {
    expect(() => loadConfig({ DATA_DIR: dataDir(), [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ DATA_DIR: dataDir(), [name]: value })).toThrow(name);
  });

  test("the server process exits 1 with the variable named", () => {
    const p = Bun.spawnSync([process.execPath, "server/main.ts"], { env: childEnv({ PORT: "nope", DATA_DIR: dataDir() }) });
    expect(p.exitCode).toBe(1);
    expect(p.stderr.toString()).toContain("PORT");
  });

  test("CLICKHOUSE_CLUSTER without CLICKHOUSE_URL is refused, naming both", () => {
    expect(() => loadConfig({ DATA_DIR: dataDir(), CLICKHOUSE_CLUSTER: "main" })).toThrow(ConfigError);
    expect(() => loadConfig({ DATA_DIR: dataDir(), CLICKHOUSE_CLUSTER: "main" })).toThrow(/CLICKHOUSE_CLUSTER=main needs CLICKHOUSE_URL/);
    expect(loadConfig({ DATA_DIR: dataDir(), CLICKHOUSE_CLUSTER: "main", CLICKHOUSE_URL: "http://ch:8123" }).clickhouse.cluster).toBe(
      "main",
    );
  });

  test("REDIS_URL (several instances) with an embedded store or a generated APP_SECRET is refused; shared servers, or one instance, are fine", () => {
    const base = { DATA_DIR: dataDir() };
    const shared = { DATABASE_URL: "postgres://db/svc", CLICKHOUSE_URL: "http://ch:8123", APP_SECRET: "s".repeat(32), S3_BUCKET: "og" };
    const check = (env: Record<string, string>) => multiInstanceCheck(loadConfig({ ...base, ...env }), env);
    const errors = (env: Record<string, string>) => check(env).errors.join("\n");
    expect(errors({ REDIS_URL: "redis://r:6379" })).toContain(
      "Postgres (DATABASE_URL is unset) and ClickHouse (CLICKHOUSE_URL is unset) are embedded",
    );
    expect(errors({ REDIS_URL: "redis://r:6379", DATABASE_URL: shared.DATABASE_URL })).toContain(
      "ClickHouse (CLICKHOUSE_URL is unset) is embedded",
    );
    expect(errors({ REDIS_URL: "redis://r:6379", CLICKHOUSE_URL: shared.CLICKHOUSE_URL })).toContain(
      "Postgres (DATABASE_URL is unset) is embedded",
    );
    expect(errors({ REDIS_URL: "redis://r:6379", ...shared, APP_SECRET: "" })).toContain("APP_SECRET");
    expect(check({ REDIS_URL: "redis://r:6379", ...shared })).toEqual({ errors: [], warnings: [] });
    expect(check({ REDIS_URL: "redis://r:6379", ...shared, S3_BUCKET: "" }).warnings.join()).toContain("S3_BUCKET");
    expect(check({ DATABASE_URL: shared.DATABASE_URL })).toEqual({ errors: [], warnings: [] }); // one instance on a Postgres server, embedded ClickHouse
    expect(check({})).toEqual({ errors: [], warnings: [] });
  });

  test.each([
    [{ CLICKHOUSE_CLUSTER: "main" }, ["CLICKHOUSE_CLUSTER", "CLICKHOUSE_URL"]],
    [{ REDIS_URL: "redis://127.0.0.1:1" }, ["REDIS_URL", "DATABASE_URL", "CLICKHOUSE_URL", "APP_SECRET"]],
  ])("the server refuses to start with %o and names the variables", (env, names) => {
    const p = Bun.spawnSync([process.execPath, "server/main.ts"], {
      env: { PATH: process.env.PATH ?? "", HOME: tmpdir(), DATA_DIR: dataDir(), ...env },
    });
    expect(p.exitCode).toBe(1);
    for (const name of names) expect(p.stderr.toString()).toContain(name);
  });
});
