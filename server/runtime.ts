// Composition root: opens the stores and the spools, builds the shared services (AppDeps), creates
// every feature once, builds the app and starts the features' jobs. Used by main.ts and by tests.
import type { ClickHouseClient } from "@clickhouse/client";
import type { InternalRoute } from "elysia";
import type { Config } from "./config";
import { createApp, type App } from "./app";
import type { Job } from "./feature";
import { authPlugin, type Auth } from "./http/auth";
import type { Metrics } from "./http/metrics";
import type { Logger } from "./http/logger";
import type { Postgres } from "./storage/postgres/client";
import type { Clickhouse } from "./storage/clickhouse/client";
import type { Kv } from "./storage/kv";
import type { CachedKeyResolver } from "./accounts/api-keys";
import type { Streams } from "./ingest/streams";
import type { SessionStore } from "./users/sessions";
import type { Mailer } from "./mail/mailer";
import { openPostgres } from "./storage/postgres/client";
import { withAdvisoryLock } from "./storage/postgres/migrate";
import { openClickhouse } from "./storage/clickhouse/client";
import { openKv } from "./storage/kv";
import { createMetrics } from "./http/metrics";
import { createLogger } from "./http/logger";
import { createKeyResolver } from "./accounts/api-keys";
import { bootstrapDevAccount } from "./accounts/bootstrap";
import { bootstrapSetupLink } from "./users/bootstrap";
import { createSessionStore } from "./users/sessions";
import { createMailer } from "./mail/mailer";
import { openStreams } from "./ingest/streams";
import { createClickFlusher } from "./ingest/clicks/flusher";
import { journeyStream } from "./ingest/journey/sink";
import { FEATURES } from "./features";
import { LinkCache } from "./links/cache";
import { CacheSync } from "./cluster/sync";
import { readOrCreateInstanceId } from "./cluster/instance-id";
import { DomainHostCache } from "./domains/host-cache";
import { ClickLimiter } from "./links/click-limit";
import { resolveTxt } from "node:dns/promises";
import type { OutboundPolicy } from "./net/outbound";

const CLICKHOUSE_MIGRATION_LOCK_ID = 727_002; // arbitrary, constant for this application

/** Everything a feature may ask for; each feature's `create` names the part it needs. */
export interface AppDeps {
  config: Config;
  /** This instance's id, kept in DATA_DIR (cluster/instance-id.ts). */
  instanceId: string;
  pg: Postgres;
  ch: Clickhouse;
  kv: Kv;
  keys: CachedKeyResolver;
  metrics: Metrics;
  logger: Logger;
  streams: Streams;
  linkCache: LinkCache;
  domainCache: DomainHostCache;
  /** Exact max_clicks counting for the redirect. */
  clickLimits: ClickLimiter;
  /** TXT lookups for domain verification (injectable so tests can answer them). */
  resolveTxt: (name: string) => Promise<string[][]>;
  /** Console sessions (cookie, lookup, CSRF tokens). */
  sessions: SessionStore;
  /** Outgoing email, when SMTP_URL is set. */
  mailer: Mailer | null;
  /** The guard of server-side fetches (webhooks, destination metadata). */
  outbound: OutboundPolicy;
  /** API keys and console sessions: the `scope` and `session` route options. */
  auth: Auth;
  /** The finished app's routes (for the OpenAPI documents). */
  routeTable: () => readonly InternalRoute[];
}

export interface Runtime {
  deps: AppDeps;
  app: App;
  /** Every feature's job by feature name, started or not (RuntimeOptions.jobs). */
  jobs: Record<string, Job>;
  devKeyPath: string | null;
  /** The one-time console setup link, while nobody has a user (embedded mode). */
  setupUrl: string | null;
  /** Stop background work, drain the spools into ClickHouse, close the stores. */
  close(): Promise<void>;
}

export interface RuntimeOptions {
  sharedClickhouse?: ClickHouseClient;
  resolveTxt?: AppDeps["resolveTxt"];
  /** DNS answers and what counts as private for outbound fetches (tests stand loopback sites in for public ones). */
  outbound?: Omit<OutboundPolicy, "allowPrivate">;
  /** Which features' jobs start: all (default), none, or those named. The others still run on runOnce(). */
  jobs?: boolean | readonly string[];
}

export async function openRuntime(config: Config, opts: RuntimeOptions = {}): Promise<Runtime> {
  const logger = createLogger(config.logLevel);
  const metrics = createMetrics();
  const pg = await openPostgres({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const ch = await openClickhouse({
    ...config.clickhouse,
    dataDir: config.dataDir,
    sharedClient: opts.sharedClickhouse,
    migrationLock: (fn) => withAdvisoryLock(pg, CLICKHOUSE_MIGRATION_LOCK_ID, fn),
  });
  const kv = openKv(config.redisUrl);
  const instanceId = readOrCreateInstanceId(config.dataDir);
  const sync = new CacheSync(pg, instanceId, {
    onError: (msg, err) => logger.error({ msg, error: String(err) }),
  });
  const keys = await createKeyResolver(pg, sync);
  const clickFlusher = createClickFlusher({
    ch,
    pg,
    trustProxy: config.trustProxy,
    hashSecret: config.appSecret,
    geoipCityDb: config.geoipCityDb,
  });
  const streams = openStreams(
    {
      dataDir: config.dataDir,
      maxUnflushedBytes: config.spoolMaxBytes,
      flushIntervalMs: config.spoolFlushMs,
      drainMs: config.spoolDrainMs,
      onError: (stream, err) => logger.error({ msg: "spool flush failed", stream, error: String(err) }),
      onStored: (stream, count) => metrics.eventsStored.inc({ stream }, count),
    },
    { clicks: clickFlusher.stream, journey: journeyStream(ch) },
  );
  for (const s of streams.all) metrics.watchSpool(s);
  metrics.watchClickFlusher(clickFlusher);
  const linkCache = new LinkCache(pg, sync);
  const domainCache = new DomainHostCache(pg, sync);
  await Promise.all([linkCache.listen(), domainCache.listen()]);
  await sync.start(); // after every cache listens: see cluster/sync.ts
  const sessions = createSessionStore(pg, {
    appSecret: config.appSecret,
    idleMs: config.sessionIdleMs,
    maxMs: config.sessionMaxMs,
    secure: config.baseUrl.startsWith("https://"),
  });
  const built: { app?: App } = {};
  const deps: AppDeps = {
    config,
    instanceId,
    pg,
    ch,
    kv,
    keys,
    metrics,
    logger,
    streams,
    linkCache,
    domainCache,
    clickLimits: new ClickLimiter(pg, {
      baseUrl: config.baseUrl,
      onError: (err) => logger.error({ msg: "click limit count failed", error: String(err) }),
    }),
    resolveTxt: opts.resolveTxt ?? resolveTxt,
    sessions,
    mailer: createMailer(config.smtpUrl, config.mailFrom),
    outbound: { ...opts.outbound, allowPrivate: config.webhookAllowInsecure },
    auth: authPlugin({ keys, sessions, kv, trustProxy: config.trustProxy, origins: [new URL(config.baseUrl).origin] }),
    // The documents describe the finished app's route table, read when they are first requested.
    routeTable: () => built.app?.routes ?? [],
  };
  const parts = FEATURES.map((f) => ({ name: f.name, ...f.create(deps) }));
  const app = createApp(
    deps,
    parts.flatMap((p) => (p.routes ? [p.routes] : [])),
  );
  built.app = app;
  const jobs = Object.fromEntries(parts.flatMap((p) => (p.job ? [[p.name, p.job] as const] : [])));
  const devKeyPath = await bootstrapDevAccount(pg, config.dataDir);
  const setupUrl = await bootstrapSetupLink(pg, config.baseUrl);
  for (const s of streams.all) s.start();
  const startJobs = opts.jobs ?? true;
  for (const [name, job] of Object.entries(jobs)) if (startJobs === true || (startJobs !== false && startJobs.includes(name))) job.start();
  // Replay whatever an earlier process left unflushed.
  for (const s of streams.all) void s.flush().catch(() => {});

  return {
    deps,
    app,
    jobs,
    devKeyPath,
    setupUrl,
    async close() {
      for (const job of Object.values(jobs)) await job.stop();
      await sync.close();
      await deps.clickLimits.drain();
      const left = await streams.close();
      for (const [stream, bytes] of Object.entries(left))
        if (bytes > 0) logger.info({ msg: "spool drain cut at SPOOL_DRAIN_MS: the next start flushes the rest", stream, bytes });
      await clickFlusher.close();
      keys.close();
      deps.mailer?.close();
      await kv.close();
      await ch.close();
      await pg.close();
      logger.flush();
    },
  };
}
