// Operations endpoints outside the public API: liveness and readiness (health.ts), the stores' health
// in the API envelope (/healthz, kept for what already polls it), and Prometheus metrics.
import { Elysia } from "elysia";
import { AppError } from "../errors";
import { Envelope } from "../http/envelope";
import { bearerMatches } from "../http/bearer";
import type { Metrics } from "../http/metrics";
import type { Postgres } from "../storage/postgres/client";
import type { Clickhouse } from "../storage/clickhouse/client";
import type { Kv } from "../storage/kv";
import { healthResponse, readiness, timed, type ReadinessSources } from "./health";
import pkg from "../../package.json" with { type: "json" };

export interface OpsDeps {
  pg: Postgres;
  ch: Clickhouse;
  kv: Pick<Kv, "kind" | "ping">;
  spools: () => ReadinessSources["spools"];
  spoolMaxBytes: number;
  instanceId: string;
  metrics: Metrics;
  metricsToken?: string;
}

const hide = { detail: { tags: ["Operations"] } };

export function opsRoutes(deps: OpsDeps) {
  const stores = [
    { name: "postgres", ping: deps.pg.ping, required: true },
    { name: "clickhouse", ping: deps.ch.ping, required: false },
    ...(deps.kv.kind === "redis" ? [{ name: "redis", ping: () => deps.kv.ping(), required: true }] : []),
  ];
  return new Elysia()
    .get("/livez", () => healthResponse({ status: "pass", version: pkg.version, serviceId: deps.instanceId }, true), hide)
    .get(
      "/readyz",
      async () => {
        const report = await readiness({
          version: pkg.version,
          instanceId: deps.instanceId,
          stores,
          spools: deps.spools(),
          spoolMaxBytes: deps.spoolMaxBytes,
        });
        return healthResponse(report, report.status !== "fail");
      },
      hide,
    )
    .get(
      "/healthz",
      async () => {
        const [postgres, clickhouse] = await Promise.all([timed(deps.pg.ping), timed(deps.ch.ping)]);
        const ok = postgres.ok && clickhouse.ok;
        return new Envelope({ status: ok ? "ok" : "degraded", postgres, clickhouse }, ok ? 200 : 503, ok);
      },
      hide,
    )
    .get(
      "/metrics",
      async ({ request }) => {
        if (deps.metricsToken && !bearerMatches(request.headers.get("authorization"), deps.metricsToken)) {
          throw new AppError("UNAUTHORIZED", "Missing or invalid metrics token");
        }
        return new Response(await deps.metrics.registry.metrics(), { headers: { "content-type": deps.metrics.registry.contentType } });
      },
      hide,
    );
}
