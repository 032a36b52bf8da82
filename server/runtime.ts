// Composition root: opens the stores, the spools and the app; used by main.ts and by tests.
import type { ClickHouseClient } from "@clickhouse/client";
import type { Config } from "./config";
import { createApp, type AppDeps } from "./app";
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
import { missingById } from "./ingest/sinks";
import type { JourneyRecord, RawClick } from "./ingest/records";
import { createClickFlusher } from "./analytics/click-flush/flusher";
import { createJourneySinks, journeyEventId } from "./journey/pipeline";
import { FEATURES } from "./features";
import { LinkCache } from "./links/cache";
import { DomainHostCache } from "./domains/host-cache";
import { ClickLimiter } from "./links/click-limit";
import { resolveTxt } from "node:dns/promises";
import type { OutboundPolicy } from "./net/outbound";

const CLICKHOUSE_MIGRATION_LOCK_ID = 727_002; // arbitrary, constant for this application

export interface Runtime {
  deps: AppDeps;
  app: ReturnType<typeof createApp>;
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
  const keys = await createKeyResolver(pg);
  const journeySinks = createJourneySinks(ch);
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
      onError: (stream, err) => logger.error({ msg: "spool flush failed", stream, error: String(err) }),
      onStored: (stream, count) => metrics.eventsStored.inc({ stream }, count),
    },
    {
      clicks: clickFlusher.sink,
      journey: journeySinks.sink,
    },
    {
      clicks: missingById<RawClick>(ch, "clicks", "click_id", "UUID", (c) => c.click_id),
      journey: missingById<JourneyRecord>(ch, "journey_events", "event_id", "UUID", journeyEventId),
    },
    { clicks: clickFlusher.sinkRaw, journey: journeySinks.sinkRaw },
  );
  for (const s of streams.all) metrics.watchSpool(s);
  const linkCache = new LinkCache(pg);
  const domainCache = new DomainHostCache(pg);
  await Promise.all([linkCache.listen(), domainCache.listen()]);
  const deps: AppDeps = {
    config,
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
    sessions: createSessionStore(pg, {
      appSecret: config.appSecret,
      idleMs: config.sessionIdleMs,
      maxMs: config.sessionMaxMs,
      secure: config.baseUrl.startsWith("https://"),
    }),
    mailer: createMailer(config.smtpUrl, config.mailFrom),
    outbound: { ...opts.outbound, allowPrivate: config.webhookAllowInsecure },
  };
  const app = createApp(deps);
  const devKeyPath = await bootstrapDevAccount(pg, config.dataDir);
  const setupUrl = await bootstrapSetupLink(pg, config.baseUrl);
  for (const s of streams.all) s.start();
  const stops = FEATURES.map((f) => f.start?.(deps)).filter((stop): stop is () => Promise<void> | void => !!stop);
  // Replay whatever an earlier process left unflushed.
  for (const s of streams.all) void s.flush().catch(() => {});

  return {
    deps,
    app,
    devKeyPath,
    setupUrl,
    async close() {
      for (const stop of stops) await stop();
      await deps.clickLimits.drain();
      for (const s of streams.all) await s.close();
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
