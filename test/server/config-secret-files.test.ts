// Every secret variable also accepts <NAME>_FILE (Docker and Kubernetes secrets are files).
import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, loadConfig, localProbeUrl, multiInstanceCheck, SECRET_VARIABLES } from "../../server/config";
import { childEnv } from "../helpers/stores";

const dir = () => mkdtempSync(join(tmpdir(), "svc-config-files-"));
const secretFile = (content: string) => {
  const path = join(dir(), "secret");
  writeFileSync(path, content, { mode: 0o600 });
  return path;
};

const values: Record<(typeof SECRET_VARIABLES)[number], string> = {
  DATABASE_URL: "postgres://svc:p%40ss@db:5432/svc",
  CLICKHOUSE_PASSWORD: "ch-password",
  REDIS_URL: "redis://:pw@redis:6379",
  ADMIN_TOKEN: "admin-token-0123456789",
  APP_SECRET: "a".repeat(40),
  METRICS_TOKEN: "metrics-token",
  SMTP_URL: "smtp://user:pass@mail:587",
};
const read = {
  DATABASE_URL: (c: ReturnType<typeof loadConfig>) => c.databaseUrl,
  CLICKHOUSE_PASSWORD: (c: ReturnType<typeof loadConfig>) => c.clickhouse.password,
  REDIS_URL: (c: ReturnType<typeof loadConfig>) => c.redisUrl,
  ADMIN_TOKEN: (c: ReturnType<typeof loadConfig>) => c.adminToken,
  APP_SECRET: (c: ReturnType<typeof loadConfig>) => c.appSecret,
  METRICS_TOKEN: (c: ReturnType<typeof loadConfig>) => c.metricsToken,
  SMTP_URL: (c: ReturnType<typeof loadConfig>) => c.smtpUrl,
};

describe("<NAME>_FILE", () => {
  test.each(SECRET_VARIABLES.map((n) => [n]))("%s_FILE: the file's content is the value, without its final line break", (name) => {
    const config = loadConfig({ DATA_DIR: dir(), [`${name}_FILE`]: secretFile(`${values[name]}\n`) });
    expect(read[name](config)).toBe(values[name]);
  });

  test("a value from a file is validated like the variable, and the message names the file, not the secret", () => {
    const path = secretFile("short\n");
    const load = () => loadConfig({ DATA_DIR: dir(), ADMIN_TOKEN_FILE: path });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(`ADMIN_TOKEN_FILE=${JSON.stringify(path)}`);
    expect(load).not.toThrow("short");
  });

  test("an invalid secret set directly is named, its value never shown", () => {
    const cases = { ADMIN_TOKEN: "tooshort", APP_SECRET: "s3cret-but-short", DATABASE_URL: "postgress://svc:hunter2@db/svc" };
    for (const [name, value] of Object.entries(cases)) {
      const load = () => loadConfig({ DATA_DIR: dir(), [name]: value });
      expect(load).toThrow(ConfigError);
      expect(load).toThrow(`Invalid environment variable ${name}`);
      expect(load).not.toThrow(value);
    }
  });

  test("an unreadable file stops start-up naming the variable", () => {
    const load = () => loadConfig({ DATA_DIR: dir(), APP_SECRET_FILE: "/nonexistent/app-secret" });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/APP_SECRET_FILE="\/nonexistent\/app-secret": cannot read it \(ENOENT\)/);
  });

  test("both NAME and NAME_FILE set is refused", () => {
    expect(() => loadConfig({ DATA_DIR: dir(), METRICS_TOKEN: "x", METRICS_TOKEN_FILE: secretFile("y") })).toThrow(
      "Both METRICS_TOKEN and METRICS_TOKEN_FILE are set",
    );
  });

  test("APP_SECRET_FILE counts as a shared APP_SECRET for several instances", () => {
    const env = {
      DATA_DIR: dir(),
      REDIS_URL: "redis://r:6379",
      DATABASE_URL: "postgres://db/svc",
      CLICKHOUSE_URL: "http://ch:8123",
      S3_BUCKET: "og",
      APP_SECRET_FILE: secretFile("s".repeat(32)),
    };
    expect(multiInstanceCheck(loadConfig(env), env).errors).toEqual([]);
  });

  test("a server process takes its secret from the file (a wrong admin token is refused, the file's is accepted)", async () => {
    const data = dir();
    const token = "from-a-file-0123456789";
    const proc = Bun.spawn([process.execPath, "server/main.ts"], {
      env: childEnv({ PORT: "0", DATA_DIR: data, ADMIN_TOKEN_FILE: secretFile(`${token}\n`), LOG_LEVEL: "error" }),
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      const url = await listeningUrl(proc.stdout);
      expect(
        (await fetch(`${url}/admin/v1/accounts/${crypto.randomUUID()}`, { headers: { authorization: "Bearer wrong-token-0123456789" } }))
          .status,
      ).toBe(401);
      expect(
        (await fetch(`${url}/admin/v1/accounts/${crypto.randomUUID()}`, { headers: { authorization: `Bearer ${token}` } })).status,
      ).toBe(404);
    } finally {
      proc.kill();
      await proc.exited;
    }
  });

  test("the health probe asks this container's PORT on loopback", () => {
    expect(localProbeUrl("/livez", {})).toBe("http://127.0.0.1:3000/livez");
    expect(localProbeUrl("/readyz", { PORT: "8080" })).toBe("http://127.0.0.1:8080/readyz");
    expect(localProbeUrl("http://127.0.0.1:8123/ping", { PORT: "8080" })).toBe("http://127.0.0.1:8123/ping");
  });
});

async function listeningUrl(stdout: ReadableStream<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of stdout) {
    text += decoder.decode(chunk);
    const m = text.match(/"msg":"listening","url":"([^"]+)"/);
    if (m) return m[1];
  }
  throw new Error(`the server exited before listening:\n${text}`);
}
