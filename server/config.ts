// The only reader of the environment: validates it once with TypeBox and freezes the result.
import { Type, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { randomBytes } from "node:crypto";

const Bool = Type.Union([Type.Literal("true"), Type.Literal("false"), Type.Literal("1"), Type.Literal("0")]);
const Url = Type.String({ pattern: "^https?://[^\\s]+$" });

const EnvSchema = Type.Object({
  PORT: Type.Optional(Type.String({ pattern: "^[0-9]{1,5}$" })),
  HOST: Type.Optional(Type.String({ minLength: 1 })),
  BASE_URL: Type.Optional(Url),
  DATA_DIR: Type.Optional(Type.String({ minLength: 1 })),
  DATABASE_URL: Type.Optional(Type.String({ pattern: "^postgres(ql)?://" })),
  CLICKHOUSE_URL: Type.Optional(Url),
  CLICKHOUSE_USER: Type.Optional(Type.String()),
  CLICKHOUSE_PASSWORD: Type.Optional(Type.String()),
  CLICKHOUSE_DATABASE: Type.Optional(Type.String({ pattern: "^[A-Za-z_][A-Za-z0-9_]*$" })),
  CLICKHOUSE_CLUSTER: Type.Optional(Type.String({ pattern: "^[A-Za-z_][A-Za-z0-9_.-]*$" })),
  REDIS_URL: Type.Optional(Type.String({ pattern: "^rediss?://" })),
  ADMIN_TOKEN: Type.Optional(Type.String({ minLength: 16 })),
  CDN_URL: Type.Optional(Url),
  TRUST_PROXY: Type.Optional(Bool),
  WEBHOOK_ALLOW_INSECURE: Type.Optional(Bool),
  WEBHOOK_RETRY_DELAYS_MS: Type.Optional(Type.String({ pattern: "^[0-9]+(,[0-9]+)*$" })),
  APP_SECRET: Type.Optional(Type.String({ minLength: 32 })),
  METRICS_TOKEN: Type.Optional(Type.String({ minLength: 1 })),
  GEOIP_CITY_DB: Type.Optional(Type.String({ minLength: 1 })),
  S3_BUCKET: Type.Optional(Type.String({ minLength: 1 })),
  SPOOL_MAX_BYTES: Type.Optional(Type.String({ pattern: "^[0-9]+$" })),
  SPOOL_FLUSH_MS: Type.Optional(Type.String({ pattern: "^[0-9]+$" })),
  BULK_TIMEOUT_MS: Type.Optional(Type.String({ pattern: "^[0-9]+$" })),
  LOG_LEVEL: Type.Optional(Type.Union([Type.Literal("info"), Type.Literal("error"), Type.Literal("silent")])),
});
type Env = Static<typeof EnvSchema>;

export interface Config {
  port: number;
  host: string;
  baseUrl: string;
  dataDir: string;
  databaseUrl?: string;
  clickhouse: { url?: string; user?: string; password?: string; database: string; cluster?: string };
  redisUrl?: string;
  adminToken?: string;
  cdnUrl: string;
  trustProxy: boolean;
  webhookAllowInsecure: boolean;
  webhookRetryDelaysMs: number[];
  appSecret: string;
  metricsToken?: string;
  geoipCityDb?: string;
  s3Bucket?: string;
  spoolMaxBytes: number;
  spoolFlushMs: number;
  logLevel: "info" | "error" | "silent";
  bulkTimeoutMs: number;
}

export class ConfigError extends Error {}

const flag = (v: string | undefined) => v === "true" || v === "1";

/**
 * The server always runs in production mode: Elysia then builds terse validation errors (no echo of
 * the whole input, no example value), and nothing can switch on a development error page. Elysia reads
 * NODE_ENV once, when it is first imported, so main.ts calls this before importing it.
 */
export function useProductionMode(): void {
  process.env.NODE_ENV = "production";
}

/** Reads and validates the environment; throws ConfigError naming the offending variable. */
export function loadConfig(env: Record<string, string | undefined> = Bun.env, overrides: Partial<Config> = {}): Config {
  const picked: Record<string, string> = {};
  for (const key of Object.keys(EnvSchema.properties)) {
    const v = env[key];
    if (v !== undefined && v !== "") picked[key] = v;
  }
  const firstError = Value.Errors(EnvSchema, picked).First();
  if (firstError) {
    const name = firstError.path.replace(/^\//, "");
    throw new ConfigError(`Invalid environment variable ${name}=${JSON.stringify(picked[name])}: ${firstError.message}`);
  }
  const e = picked as Env;
  const port = Number(e.PORT ?? 3000);
  if (port > 65535) throw new ConfigError(`Invalid environment variable PORT=${e.PORT}: must be at most 65535`);
  const dataDir = resolve(e.DATA_DIR ?? "./data");
  const baseUrl = (e.BASE_URL ?? `http://localhost:${port}`).replace(/\/+$/, "");
  const config: Config = {
    port,
    host: e.HOST ?? "0.0.0.0",
    baseUrl,
    dataDir,
    databaseUrl: e.DATABASE_URL,
    clickhouse: {
      url: e.CLICKHOUSE_URL,
      user: e.CLICKHOUSE_USER,
      password: e.CLICKHOUSE_PASSWORD,
      database: e.CLICKHOUSE_DATABASE ?? "svc",
      cluster: e.CLICKHOUSE_CLUSTER,
    },
    redisUrl: e.REDIS_URL,
    adminToken: e.ADMIN_TOKEN,
    cdnUrl: (e.CDN_URL ?? `${baseUrl}/cdn`).replace(/\/+$/, ""),
    trustProxy: flag(e.TRUST_PROXY),
    webhookAllowInsecure: flag(e.WEBHOOK_ALLOW_INSECURE),
    webhookRetryDelaysMs: (e.WEBHOOK_RETRY_DELAYS_MS ?? "30000,120000,480000").split(",").map(Number),
    appSecret: e.APP_SECRET ?? "",
    metricsToken: e.METRICS_TOKEN,
    geoipCityDb: e.GEOIP_CITY_DB,
    s3Bucket: e.S3_BUCKET,
    spoolMaxBytes: Number(e.SPOOL_MAX_BYTES ?? 256 * 1024 * 1024),
    spoolFlushMs: Number(e.SPOOL_FLUSH_MS ?? 250),
    logLevel: e.LOG_LEVEL ?? "info",
    bulkTimeoutMs: Number(e.BULK_TIMEOUT_MS ?? 60_000),
    ...overrides,
  };
  if (!config.appSecret) config.appSecret = readOrCreateAppSecret(config.dataDir);
  return Object.freeze(config);
}

/** APP_SECRET defaults to a random value generated once into DATA_DIR (mode 0600). */
function readOrCreateAppSecret(dataDir: string): string {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, "app-secret");
  if (existsSync(path)) return readFileSync(path, "utf8").trim();
  const secret = randomBytes(32).toString("base64url");
  writeFileSync(path, secret, { mode: 0o600 });
  return secret;
}
