// Operations endpoints outside the public API: health of both stores, and Prometheus metrics.
import { Elysia } from "elysia";
import { AppError } from "../errors";
import { Envelope } from "../http/envelope";
import { bearerMatches } from "../http/bearer";
import type { Metrics } from "../http/metrics";
import type { Postgres } from "../storage/postgres/client";
import type { Clickhouse } from "../storage/clickhouse/client";

const timed = async (check: () => Promise<void>) => {
  const started = performance.now();
  try {
    await check();
    return { ok: true, ms: Math.round(performance.now() - started) };
  } catch (err) {
    return { ok: false, ms: Math.round(performance.now() - started), error: String((err as Error).message ?? err) };
  }
};

export function opsRoutes(deps: { pg: Postgres; ch: Clickhouse; metrics: Metrics; metricsToken?: string }) {
  return new Elysia()
    .get(
      "/healthz",
      async () => {
        const [postgres, clickhouse] = await Promise.all([timed(deps.pg.ping), timed(deps.ch.ping)]);
        const ok = postgres.ok && clickhouse.ok;
        return new Envelope({ status: ok ? "ok" : "degraded", postgres, clickhouse }, ok ? 200 : 503, ok);
      },
      { detail: { tags: ["Operations"] } },
    )
    .get(
      "/metrics",
      async ({ request }) => {
        if (deps.metricsToken && !bearerMatches(request.headers.get("authorization"), deps.metricsToken)) {
          throw new AppError("UNAUTHORIZED", "Missing or invalid metrics token");
        }
        return new Response(await deps.metrics.registry.metrics(), { headers: { "content-type": deps.metrics.registry.contentType } });
      },
      { detail: { tags: ["Operations"] } },
    );
}
