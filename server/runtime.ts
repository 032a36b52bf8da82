// Composition root, in phases: the stores, the ingest spools, what features share (each made by its
// owner), the features (routes → the app, front handlers → one front, jobs), then start. Used by
// main.ts and by tests.
import type { ClickHouseClient } from "@clickhouse/client";
import type { InternalRoute } from "elysia";
import type { Config } from "./config";
import { createApp, type App } from "./app";
import type { FrontHandler, Job, SharedFrom, StreamedBodyLimit } from "./feature";
import { authPlugin, type Auth } from "./http/auth";
import type { Metrics } from "./http/metrics";
import type { Logger } from "./http/logger";
import type { Postgres } from "./storage/postgres/client";
import type { Clickhouse } from "./storage/clickhouse/client";
import type { Kv } from "./storage/kv";
import type { Streams } from "./ingest/streams";
import { openPostgres } from "./storage/postgres/client";
import { withAdvisoryLock } from "./storage/postgres/migrate";
import { openClickhouse } from "./storage/clickhouse/client";
import { openKv } from "./storage/kv";
import { createMetrics } from "./http/metrics";
import { createLogger } from "./http/logger";
import { bootstrapDevAccount } from "./accounts/bootstrap";
import { bootstrapSetupLink } from "./users/bootstrap";
import { openStreams } from "./ingest/streams";
import { createClickFlusher } from "./ingest/clicks/flusher";
import { journeyStream } from "./ingest/journey/sink";
import { FEATURES } from "./features";
import { openAccountShared, type AccountShared } from "./accounts/shared";
import { openDomainShared, type DomainShared } from "./domains/shared";
import { openLinkShared, type LinkShared } from "./links/shared";
import { openUserShared, type UserShared } from "./users/shared";
import { CacheSync } from "./cluster/sync";
import { readOrCreateInstanceId } from "./cluster/instance-id";
import { resolveTxt } from "node:dns/promises";
import type { OutboundPolicy } from "./net/outbound";

const CLICKHOUSE_MIGRATION_LOCK_ID = 727_002; // arbitrary, constant for this application

/**
 * Everything a feature may ask for; each feature's `create` names the part it needs. The runtime makes
 * the stores, the streams, the outside world's ports and the auth plugin; what features share (API keys,
 * links and click limits, custom domains, console sessions) is each its owner's, with its owner's type.
 */
export type AppDeps = RuntimeDeps & AccountShared & LinkShared & DomainShared & UserShared;

interface RuntimeDeps {
  config: Config;
  /** This instance's id, kept in DATA_DIR (cluster/instance-id.ts). */
  instanceId: string;
  pg: Postgres;
  ch: Clickhouse;
  kv: Kv;
  metrics: Metrics;
  logger: Logger;
  streams: Streams;
  /** TXT lookups for domain verification (injectable so tests can answer them). */
  resolveTxt: (name: string) => Promise<string[][]>;
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
  /** The features' front handlers as one, asked before the app (serve.ts). */
  front: FrontHandler;
  /** The body limit of a request a route streams itself (feature.ts StreamedBodyLimit), else undefined. */
  streamedBody: StreamedBodyLimit;
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
  const stores = await openStores(config, opts);
  const ingest = openIngest(config, stores);
  const shared = await openShared(config, stores);
  const built: { app?: App } = {};
  const deps: AppDeps = {
    config,
    instanceId: stores.instanceId,
    pg: stores.pg,
    ch: stores.ch,
    kv: stores.kv,
    metrics: stores.metrics,
    logger: stores.logger,
    streams: ingest.streams,
    ...shared,
    resolveTxt: opts.resolveTxt ?? resolveTxt,
    outbound: { ...opts.outbound, allowPrivate: config.webhookAllowInsecure },
    // The documents describe the finished app's route table, read when they are first requested.
    routeTable: () => built.app?.routes ?? [],
  };
  const { app, front, streamedBody, jobs } = createFeatures(deps);
  built.app = app;
  const { devKeyPath, setupUrl } = await start(deps, jobs, opts);

  return {
    deps,
    app,
    front,
    streamedBody,
    jobs,
    devKeyPath,
    setupUrl,
    async close() {
      for (const job of Object.values(jobs)) await job.stop();
      await stores.sync.close();
      await deps.clickLimits.drain();
      const left = await ingest.streams.close();
      for (const [stream, bytes] of Object.entries(left))
        if (bytes > 0) stores.logger.info({ msg: "spool drain cut at SPOOL_DRAIN_MS: the next start flushes the rest", stream, bytes });
      await ingest.clickFlusher.close();
      deps.keys.close();
      await stores.kv.close();
      await stores.ch.close();
      await stores.pg.close();
      stores.logger.flush();
    },
  };
}

type Stores = Awaited<ReturnType<typeof openStores>>;

/** Phase 1: logging and metrics, Postgres, ClickHouse (migrated under Postgres's lock), the key-value store, the instance's id and the cache sync. */
async function openStores(config: Config, opts: RuntimeOptions) {
  const logger = createLogger(config.logLevel);
  const metrics = createMetrics();
  const pg = await openPostgres({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const ch = await openClickhouse({
    ...config.clickhouse,
    dataDir: config.dataDir,
    sharedClient: opts.sharedClickhouse,
    migrationLock: (fn) => withAdvisoryLock(pg, CLICKHOUSE_MIGRATION_LOCK_ID, fn),
  });
  metrics.watchMemory(async () => ({ pglite_wasm: pg.memoryBytes?.(), chdb_tracked: await ch.memoryBytes?.() }));
  const kv = openKv(config.redisUrl);
  const instanceId = readOrCreateInstanceId(config.dataDir);
  const sync = new CacheSync(pg, instanceId, { onError: (msg, err) => logger.error({ msg, error: String(err) }) });
  return { logger, metrics, pg, ch, kv, instanceId, sync };
}

/** Phase 2: the spools of the two streams and the clicks flusher behind them (not started yet). */
function openIngest(config: Config, { logger, metrics, pg, ch }: Stores) {
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
    { clicks: clickFlusher.stream, journey: journeyStream(ch, { dataDir: config.dataDir }) },
  );
  for (const s of streams.all) metrics.watchSpool(s);
  metrics.watchClickFlusher(clickFlusher);
  return { streams, clickFlusher };
}

/**
 * Phase 3: what several features share, each made by the feature that owns it (its `shared.ts`): API
 * keys (accounts), links and click limits (links), custom domains (domains), console sessions (users);
 * then the auth plugin over keys and sessions. The cache sync starts once every cache listens (see cluster/sync.ts).
 */
async function openShared(config: Config, { logger, pg, kv, sync }: Stores) {
  const from: SharedFrom = { config, pg, sync, logger };
  const [accounts, links, domains] = await Promise.all([openAccountShared(from), openLinkShared(from), openDomainShared(from)]);
  await sync.start();
  const users = openUserShared(from);
  const auth = authPlugin({
    keys: accounts.keys,
    sessions: users.sessions,
    kv,
    trustProxy: config.trustProxy,
    origins: [new URL(config.baseUrl).origin],
  });
  return { ...accounts, ...links, ...domains, ...users, auth };
}

/** Phase 4: every feature once; their routes make the app, their front handlers one front, their jobs a table by name. */
function createFeatures(deps: AppDeps) {
  const parts = FEATURES.map((f) => ({ name: f.name, ...f.create(deps) }));
  const app = createApp(
    deps,
    parts.flatMap((p) => (p.routes ? [p.routes] : [])),
  );
  const front = frontOf(parts.flatMap((p) => (p.front ? [p.front] : [])));
  const jobs: Record<string, Job> = Object.fromEntries(parts.flatMap((p) => (p.job ? [[p.name, p.job] as const] : [])));
  const limits = parts.flatMap((p) => (p.streamedBody ? [p.streamedBody] : []));
  const streamedBody: StreamedBodyLimit = (request) => {
    for (const limit of limits) {
      const max = limit(request);
      if (max !== undefined) return max;
    }
    return undefined;
  };
  return { app, front, streamedBody, jobs };
}

/** Phase 5: the first-run bootstraps, the spools and the jobs; then the replay of what an earlier process left unflushed. */
async function start(deps: AppDeps, jobs: Record<string, Job>, opts: RuntimeOptions) {
  const devKeyPath = await bootstrapDevAccount(deps.pg, deps.config.dataDir);
  const setupUrl = await bootstrapSetupLink(deps.pg, deps.config.baseUrl);
  for (const s of deps.streams.all) s.start();
  const startJobs = opts.jobs ?? true;
  for (const [name, job] of Object.entries(jobs)) if (startJobs === true || (startJobs !== false && startJobs.includes(name))) job.start();
  for (const s of deps.streams.all) void s.flush().catch(() => {});
  return { devKeyPath, setupUrl };
}

const passOn: FrontHandler = () => undefined;

/** One front handler out of the features': the only one as it is (the redirect's, per request, adds no call), else each in order. */
function frontOf(handlers: FrontHandler[]): FrontHandler {
  if (handlers.length === 0) return passOn;
  if (handlers.length === 1) return handlers[0];
  return (request, server) => {
    for (const h of handlers) {
      const answer = h(request, server);
      if (answer !== undefined) return answer;
    }
    return undefined;
  };
}
