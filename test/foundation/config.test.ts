import { describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, ConfigError } from "../../server/config";

const dataDir = () => mkdtempSync(join(tmpdir(), "svc-config-"));

describe("config", () => {
  test("defaults follow DESIGN.md", () => {
    const c = loadConfig({ DATA_DIR: dataDir() });
    expect(c.port).toBe(3000);
    expect(c.host).toBe("0.0.0.0");
    expect(c.baseUrl).toBe("http://localhost:3000");
    expect(c.cdnUrl).toBe("http://localhost:3000/cdn");
    expect(c.webhookRetryDelaysMs).toEqual([30000, 120000, 480000]);
    expect(c.trustProxy).toBe(false);
    expect(c.appSecret.length).toBeGreaterThanOrEqual(32);
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
  ])("a bad %s stops start-up with a message naming it", (name, value) => {
    expect(() => loadConfig({ DATA_DIR: dataDir(), [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ DATA_DIR: dataDir(), [name]: value })).toThrow(name);
  });

  test("the server process exits 1 with the variable named", () => {
    const p = Bun.spawnSync([process.execPath, "server/main.ts"], { env: { ...process.env, PORT: "nope", DATA_DIR: dataDir() } });
    expect(p.exitCode).toBe(1);
    expect(p.stderr.toString()).toContain("PORT");
  });
});
