// Liveness and readiness for orchestrators, as `application/health+json` (the IETF draft
// "Health Check Response Format for HTTP APIs"): `status` pass, warn or fail, and `checks` with each
// store's round-trip time and each spool's unflushed bytes. Liveness asks nothing of the stores.
//
// Readiness fails (503) only when this instance cannot serve: Postgres (or Redis) does not answer. A
// ClickHouse outage, and a spool over its bound because of it, are `warn` (200): every instance has them
// at once, and an unready instance gets no traffic (a Kubernetes Service drops it from its endpoints,
// Caddy's health check from its upstreams), so failing on them would stop the redirects everywhere,
// which the spool exists to keep going.

export const HEALTH_JSON = "application/health+json";

/** How long one store may take to answer a readiness check before it counts as down. */
export const CHECK_TIMEOUT_MS = 2_000;

export interface HealthCheck {
  componentId?: string;
  componentType: "datastore" | "component";
  observedValue: number;
  observedUnit: "ms" | "bytes";
  status: HealthStatus;
  time: string;
  output?: string;
}

export type HealthStatus = "pass" | "warn" | "fail";

export interface HealthReport {
  status: HealthStatus;
  version: string;
  serviceId: string;
  description: string;
  checks: Record<string, HealthCheck[]>;
}

export interface ReadinessSources {
  version: string;
  instanceId: string;
  /** `required`: down, this instance cannot serve (fail); otherwise down is a warning. */
  stores: { name: string; ping: () => Promise<void>; required: boolean }[];
  spools: { name: string; unflushedBytes: number; isOverBound: boolean }[];
  spoolMaxBytes: number;
}

/** Runs `check` with a deadline: a store that does not answer in time is down for this probe. */
export async function timed(check: () => Promise<void>, timeoutMs = CHECK_TIMEOUT_MS) {
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([check(), deadline]);
    return { ok: true, ms: Math.round(performance.now() - started) };
  } catch (err) {
    return { ok: false, ms: Math.round(performance.now() - started), error: String((err as Error)?.message ?? err) };
  } finally {
    clearTimeout(timer);
  }
}

export async function readiness(src: ReadinessSources): Promise<HealthReport> {
  const time = new Date().toISOString();
  const results = await Promise.all(src.stores.map(async (s) => ({ name: s.name, required: s.required, result: await timed(s.ping) })));
  const checks: Record<string, HealthCheck[]> = {};
  for (const { name, required, result } of results) {
    checks[`${name}:responseTime`] = [
      {
        componentType: "datastore",
        observedValue: result.ms,
        observedUnit: "ms",
        status: result.ok ? "pass" : required ? "fail" : "warn",
        time,
        ...(result.ok ? {} : { output: result.error }),
      },
    ];
  }
  checks["spool:unflushedBytes"] = src.spools.map((s) => ({
    componentId: s.name,
    componentType: "component",
    observedValue: s.unflushedBytes,
    observedUnit: "bytes",
    status: s.isOverBound ? "warn" : "pass",
    time,
    ...(s.isOverBound
      ? { output: `over SPOOL_MAX_BYTES (${src.spoolMaxBytes}): ingest answers 503 until ClickHouse takes the backlog` }
      : {}),
  }));
  const all = Object.values(checks).flat();
  const status = all.some((c) => c.status === "fail") ? "fail" : all.some((c) => c.status === "warn") ? "warn" : "pass";
  return {
    status,
    version: src.version,
    serviceId: src.instanceId,
    description: "readiness: Postgres (and Redis) answer; ClickHouse and the spools warn, the spools hold the clicks",
    checks,
  };
}

export function healthResponse(body: object, ok: boolean): Response {
  return new Response(JSON.stringify(body), {
    status: ok ? 200 : 503,
    headers: { "content-type": HEALTH_JSON, "cache-control": "no-store" },
  });
}
