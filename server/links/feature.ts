// The links feature: the links API, the local CDN of uploaded images, and two jobs: the hourly purge
// of links deleted more than 7 days ago, and the expiry sweeper.
import { Elysia } from "elysia";
import type { Config } from "../config";
import type { Feature } from "../feature";
import type { Auth } from "../http/auth";
import type { Logger } from "../http/logger";
import type { OutboundPolicy } from "../net/outbound";
import type { Postgres } from "../storage/postgres/client";
import type { Clickhouse } from "../storage/clickhouse/client";
import { jobs, periodicJob } from "../periodic-job";
import type { LinkCache } from "./cache";
import { expirySweeper } from "./expiry-sweeper";
import { cdnRoutes, linksRoutes } from "./routes";
import { purgeDeletedLinks } from "./service";

export interface LinksFeatureDeps {
  config: Pick<Config, "baseUrl" | "bulkTimeoutMs" | "cdnUrl" | "dataDir" | "s3Bucket">;
  pg: Postgres;
  ch: Clickhouse;
  linkCache: LinkCache;
  outbound: OutboundPolicy;
  logger: Logger;
  auth: Auth;
}

const PURGE_EVERY_MS = 60 * 60_000;

export const linksFeature: Feature<LinksFeatureDeps> = {
  name: "links",
  create: (deps) => ({
    routes: new Elysia().use(linksRoutes(deps)).use(cdnRoutes(deps)),
    job: jobs(
      periodicJob({
        everyMs: PURGE_EVERY_MS,
        firstAfterMs: 5_000,
        onError: (err) => deps.logger.error({ msg: "link purge failed", error: String(err) }),
        async run() {
          const n = await purgeDeletedLinks(deps.pg);
          if (n) deps.logger.info({ msg: "purged deleted links", count: n });
        },
      }),
      expirySweeper({
        pg: deps.pg,
        baseUrl: deps.config.baseUrl,
        onError: (err) => deps.logger.error({ msg: "link expiry sweep failed", error: String(err) }),
      }),
    ),
  }),
};
