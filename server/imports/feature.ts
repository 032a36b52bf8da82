// The imports feature: POST /imports and its job, which imports the files' rows in batches (and, after a
// restart, carries on where an earlier process stopped).
import type { Config } from "../config";
import type { Feature } from "../feature";
import type { Auth } from "../http/auth";
import { API_PREFIX, pathOf } from "../http/api-prefix";
import type { Logger } from "../http/logger";
import type { OutboundPolicy } from "../net/outbound";
import type { Postgres } from "../storage/postgres/client";
import type { Clickhouse } from "../storage/clickhouse/client";
import { periodicJob } from "../periodic-job";
import type { LinkCache } from "../links/cache";
import { findAccountRecord } from "../accounts/read";
import { importsRoutes } from "./routes";
import { IMPORT_MAX_BYTES } from "./file";
import { KUTT_MAX_BYTES } from "./sources";
import { runPendingImports } from "./service";

export interface ImportsFeatureDeps {
  config: Pick<Config, "baseUrl" | "dataDir">;
  pg: Postgres;
  ch: Clickhouse;
  linkCache: LinkCache;
  outbound: OutboundPolicy;
  logger: Logger;
  auth: Auth;
}

const EVERY_MS = 2_000;
const IMPORTS_PATH = `${API_PREFIX}/imports`;

export const importsFeature: Feature<ImportsFeatureDeps> = {
  name: "imports",
  create: (deps) => {
    const service = { ...deps, baseUrl: deps.config.baseUrl, dataDir: deps.config.dataDir };
    const job = periodicJob({
      everyMs: EVERY_MS,
      firstAfterMs: 0,
      onError: (err) => deps.logger.error({ msg: "import failed", error: String(err) }),
      run: (stopping) => runPendingImports(service, (id) => findAccountRecord(deps.pg, id), stopping),
    });
    return {
      routes: importsRoutes({ ...service, onCreated: () => void job.runOnce().catch(() => {}) }),
      // A JSON body is parsed whole by the input guard before the route: it is held to the JSON limit.
      streamedBody: (request) =>
        pathOf(request.url) !== IMPORTS_PATH
          ? undefined
          : /json/i.test(request.headers.get("content-type") ?? "")
            ? KUTT_MAX_BYTES
            : IMPORT_MAX_BYTES + 1024 * 1024,
      job,
    };
  },
};
