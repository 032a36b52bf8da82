// The only reader of the environment: validates it once with TypeBox and freezes the result.
import { Type, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { randomBytes } from "node:crypto";

const DEFAULT_QUERY_TIMEOUT_MS = 15_000;
/**
 * The background jobs' queries (stored report state): no one waits for them, a round runs every minute.
 * Embedded chDB runs one query with parameters at a time in the process, so there a job query holds the
 * reports back while it runs: a minute at most, against ten with a ClickHouse server.
 */
const DEFAULT_JOB_QUERY_TIMEOUT_MS = { server: 600_000, embedded: 60_000 };
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
  CLICKHOUSE_QUERY_TIMEOUT_MS: Type.Optional(Type.String({ pattern: "^[0-9]{1,7}$" })),
  CLICKHOUSE_JOB_QUERY_TIMEOUT_MS: Type.Optional(Type.String({ pattern: "^[0-9]{1,8}$" })),
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
  SPOOL_DRAIN_MS: Type.Optional(Type.String({ pattern: "^[0-9]+$" })),
  BULK_TIMEOUT_MS: Type.Optional(Type.String({ pattern: "^[0-9]+$" })),
  LOG_LEVEL: Type.Optional(Type.Union([Type.Literal("info"), Type.Literal("error"), Type.Literal("silent")])),
  SIGNUP_MODE: Type.Optional(Type.Union([Type.Literal("open"), Type.Literal("invite"), Type.Literal("closed")])),
  SESSION_IDLE_HOURS: Type.Optional(Type.String({ pattern: "^[1-9][0-9]{0,4}$" })),
  SESSION_MAX_DAYS: Type.Optional(Type.String({ pattern: "^[1-9][0-9]{0,3}$" })),
  SMTP_URL: Type.Optional(Type.String({ pattern: "^smtps?://[^\\s]+$" })),
  MAIL_FROM: Type.Optional(Type.String({ minLength: 3, maxLength: 320 })),
});
type Env = Static<typeof EnvSchema>;

/**
 * Variables that hold a secret: each may instead name a file that holds it, `<NAME>_FILE` (Docker and
 * Kubernetes secrets are files). The file's content is the value, without its final line break.
 */
export const SECRET_VARIABLES = [
  "DATABASE_URL",
  "CLICKHOUSE_PASSWORD",
  "REDIS_URL",
  "ADMIN_TOKEN",
  "APP_SECRET",
  "METRICS_TOKEN",
  "SMTP_URL",
] as const;

export interface Config {
  port: number;
  host: string;
  baseUrl: string;
  dataDir: string;
  databaseUrl?: string;
  clickhouse: {
    url?: string;
    user?: string;
    password?: string;
    database: string;
    cluster?: string;
    /** The time limit of a report query (every ClickHouse read the API makes), in ms; 0: none. */
    queryTimeoutMs: number;
    /** The time limit of a background job's query (the journey job's stored report state), in ms; 0: none. */
    jobQueryTimeoutMs: number;
  };
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
  /** How long a shutdown moves spooled rows into ClickHouse before it leaves the rest for the next start. */
  spoolDrainMs: number;
  logLevel: "info" | "error" | "silent";
  bulkTimeoutMs: number;
  /** Who may create a console user: anyone (open), invited people (invite), or only the operator (closed). */
  signupMode: "open" | "invite" | "closed";
  sessionIdleMs: number;
  sessionMaxMs: number;
  smtpUrl?: string;
  mailFrom: string;
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
  const files = secretsFromFiles(env);
  const picked: Record<string, string> = {};
  for (const key of Object.keys(EnvSchema.properties)) {
    const v = files[key] ?? env[key];
    if (v !== undefined && v !== "") picked[key] = v;
  }
  const firstError = Value.Errors(EnvSchema, picked).First();
  if (firstError) {
    const name = firstError.path.replace(/^\//, "");
    // A secret's value never reaches the log: a misspelt DATABASE_URL still holds its password.
    const shown =
      name in files
        ? `${name}_FILE=${JSON.stringify(env[`${name}_FILE`])} (its content)`
        : (SECRET_VARIABLES as readonly string[]).includes(name)
          ? `${name} (its value, not shown: a secret)`
          : `${name}=${JSON.stringify(picked[name])}`;
    throw new ConfigError(`Invalid environment variable ${shown}: ${firstError.message}`);
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
      queryTimeoutMs: Number(e.CLICKHOUSE_QUERY_TIMEOUT_MS ?? DEFAULT_QUERY_TIMEOUT_MS),
      jobQueryTimeoutMs: Number(
        e.CLICKHOUSE_JOB_QUERY_TIMEOUT_MS ?? DEFAULT_JOB_QUERY_TIMEOUT_MS[e.CLICKHOUSE_URL ? "server" : "embedded"],
      ),
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
    spoolDrainMs: Number(e.SPOOL_DRAIN_MS ?? 20_000),
    logLevel: e.LOG_LEVEL ?? "info",
    bulkTimeoutMs: Number(e.BULK_TIMEOUT_MS ?? 60_000),
    signupMode: e.SIGNUP_MODE ?? "invite",
    sessionIdleMs: Number(e.SESSION_IDLE_HOURS ?? 168) * 3_600_000,
    sessionMaxMs: Number(e.SESSION_MAX_DAYS ?? 30) * 86_400_000,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM ?? `svc <no-reply@${new URL(baseUrl).hostname}>`,
    ...overrides,
  };
  if (config.clickhouse.cluster && !config.clickhouse.url) {
    throw new ConfigError(
      `CLICKHOUSE_CLUSTER=${config.clickhouse.cluster} needs CLICKHOUSE_URL: a cluster is reached over HTTP, the embedded ClickHouse has no cluster`,
    );
  }
  if (!config.appSecret) config.appSecret = readOrCreateAppSecret(config.dataDir);
  return Object.freeze(config);
}

/** The configuration of a PORT=0 server once bound: PORT is the port it took, which BASE_URL's default names. */
export function loadConfigOnPort(port: number, env: Record<string, string | undefined> = Bun.env): Config {
  return loadConfig({ ...env, PORT: String(port) });
}

/**
 * A configuration that looks like one of several instances (REDIS_URL set: it exists to share rate limits,
 * idempotency keys and usage counters) but keeps something per instance. Errors stop start-up (main.ts;
 * not in loadConfig, since tests wire shared stores in-process); warnings are logged.
 * One instance on a Postgres server with embedded ClickHouse (no REDIS_URL) is a legitimate setup.
 */
export function multiInstanceCheck(
  config: Config,
  env: Record<string, string | undefined> = Bun.env,
): { errors: string[]; warnings: string[] } {
  const errors: string[] = [];
  const warnings: string[] = [];
  if (!config.redisUrl) return { errors, warnings };
  const embedded = [
    ...(config.databaseUrl ? [] : ["Postgres (DATABASE_URL is unset)"]),
    ...(config.clickhouse.url ? [] : ["ClickHouse (CLICKHOUSE_URL is unset)"]),
  ];
  if (embedded.length) {
    errors.push(
      `REDIS_URL is set, which is for several instances sharing their stores, but ${embedded.join(" and ")} ` +
        `${embedded.length > 1 ? "are" : "is"} embedded in DATA_DIR: each instance would keep its own data. ` +
        "Set DATABASE_URL and CLICKHOUSE_URL to servers every instance shares, or unset REDIS_URL to run one instance.",
    );
  }
  if (!env.APP_SECRET && !env.APP_SECRET_FILE) {
    errors.push(
      "REDIS_URL is set (several instances) but APP_SECRET is not: each instance would generate its own into DATA_DIR, " +
        "so webhook secrets stored by one could not be read by another and visitor hashes would differ. Give every instance the same APP_SECRET.",
    );
  }
  if (!config.s3Bucket) {
    warnings.push(
      "REDIS_URL is set (several instances) but S3_BUCKET is not: uploaded OG images stay on the disk of the instance that took them.",
    );
  }
  return { errors, warnings };
}

/** The values of the `<NAME>_FILE` variables that are set, by NAME; setting both NAME and NAME_FILE is an error. */
function secretsFromFiles(env: Record<string, string | undefined>): Record<string, string> {
  const values: Record<string, string> = {};
  for (const name of SECRET_VARIABLES) {
    const path = env[`${name}_FILE`];
    if (path === undefined || path === "") continue;
    if (env[name] !== undefined && env[name] !== "") {
      throw new ConfigError(`Both ${name} and ${name}_FILE are set: set one of them`);
    }
    try {
      values[name] = readFileSync(path, "utf8").replace(/\r?\n$/, "");
    } catch (err) {
      throw new ConfigError(
        `Invalid environment variable ${name}_FILE=${JSON.stringify(path)}: cannot read it (${(err as NodeJS.ErrnoException).code ?? err})`,
      );
    }
  }
  return values;
}

/** One secret variable as the server reads it: NAME, or the content of the file NAME_FILE names (the CLI's ADMIN_TOKEN). */
export function secretVariable(name: (typeof SECRET_VARIABLES)[number], env: Record<string, string | undefined> = Bun.env) {
  return env[name] || secretsFromFiles({ [`${name}_FILE`]: env[`${name}_FILE`] })[name] || undefined;
}

/** Where the container's health check finds this server: loopback on PORT (server/ops/probe.ts); a full URL as it is. */
export function localProbeUrl(path: string, env: Record<string, string | undefined> = Bun.env): string {
  if (/^https?:\/\//.test(path)) return path;
  const port = env.PORT && /^[1-9][0-9]{0,4}$/.test(env.PORT) ? env.PORT : "3000";
  return `http://127.0.0.1:${port}${path.startsWith("/") ? path : `/${path}`}`;
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
