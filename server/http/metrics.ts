// Prometheus metrics (prom-client): one registry per app instance, so tests stay isolated.
import { Counter, Gauge, Histogram, Registry } from "prom-client";

export interface SpoolGaugeSource {
  name: string;
  unflushedBytes: number;
  lagSeconds: number;
  isOverBound: boolean;
}

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** Plain counters for the redirect hot path, folded into the Prometheus metrics at scrape time. */
export class HotPathCounter {
  count = 0;
  sum = 0;
  readonly buckets = new Float64Array(LATENCY_BUCKETS.length);
  observe(seconds: number) {
    this.count++;
    this.sum += seconds;
    for (let i = 0; i < LATENCY_BUCKETS.length; i++)
      if (seconds <= LATENCY_BUCKETS[i]) {
        this.buckets[i]++;
        break;
      }
  }
}

/** Bytes held by a part of the process, by part name (docs/operations.md "Memory"); undefined: not known. */
export type MemorySource = () => Promise<Record<string, number | undefined>>;

export function createMetrics() {
  const registry = new Registry();
  const spools: SpoolGaugeSource[] = [];
  const memorySources: MemorySource[] = [];
  let clickFlusher: { storedInBackground: boolean | null } | null = null;
  const redirects = new HotPathCounter();
  const metrics = {
    registry,
    requests: new Counter({
      name: "http_requests_total",
      help: "HTTP requests by route and status",
      labelNames: ["method", "route", "status"],
      registers: [registry],
      collect() {
        foldRedirects();
      },
    }),
    latency: new Histogram({
      name: "http_request_duration_seconds",
      help: "HTTP request latency",
      labelNames: ["method", "route"],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
      collect() {
        foldRedirects();
      },
    }),
    /** Redirects answered by the fast path (GET /:code 302), counted without prom-client per request. */
    redirects,
    eventsAccepted: new Counter({
      name: "events_accepted_total",
      help: "Events accepted into the spool",
      labelNames: ["stream"],
      registers: [registry],
    }),
    eventsStored: new Counter({
      name: "events_stored_total",
      help: "Events inserted into ClickHouse",
      labelNames: ["stream"],
      registers: [registry],
    }),
    eventsRejected: new Counter({
      name: "events_rejected_total",
      help: "Events rejected at ingest",
      labelNames: ["stream", "reason"],
      registers: [registry],
    }),
    webhookDeliveries: new Counter({
      name: "webhook_deliveries_total",
      help: "Webhook delivery attempts by outcome",
      labelNames: ["outcome"],
      registers: [registry],
    }),
    watchClickFlusher(source: { storedInBackground: boolean | null }) {
      clickFlusher = source;
    },
    watchSpool(source: SpoolGaugeSource) {
      spools.push(source);
    },
    watchMemory(source: MemorySource) {
      memorySources.push(source);
    },
  };
  // Moves the hot-path counts into prom-client: each bucket's observations at the bucket's upper bound.
  function foldRedirects() {
    if (redirects.count === 0) return;
    metrics.requests.inc({ method: "GET", route: "/:code", status: "302" }, redirects.count);
    const h = metrics.latency.labels("GET", "/:code");
    let placed = 0;
    redirects.buckets.forEach((n, i) => {
      for (let k = 0; k < n; k++) h.observe(LATENCY_BUCKETS[i]);
      placed += n;
    });
    for (let k = placed; k < redirects.count; k++) h.observe(LATENCY_BUCKETS[LATENCY_BUCKETS.length - 1] * 2);
    redirects.count = 0;
    redirects.sum = 0;
    redirects.buckets.fill(0);
  }
  new Gauge({
    name: "spool_unflushed_bytes",
    help: "Bytes in the spool not yet in ClickHouse",
    labelNames: ["spool"],
    registers: [registry],
    collect() {
      for (const s of spools) this.set({ spool: s.name }, s.unflushedBytes);
    },
  });
  new Gauge({
    name: "spool_over_bound",
    help: "1 while the spool holds more than SPOOL_MAX_BYTES unflushed (journey ingest answers 503; clicks are stored at normal priority)",
    labelNames: ["spool"],
    registers: [registry],
    collect() {
      for (const s of spools) this.set({ spool: s.name }, s.isOverBound ? 1 : 0);
    },
  });
  new Gauge({
    name: "click_flush_background",
    help: "1 when the last clicks chunk was stored at background CPU priority, 0 at normal priority (catching up)",
    registers: [registry],
    collect() {
      const background = clickFlusher?.storedInBackground;
      if (background !== null && background !== undefined) this.set(background ? 1 : 0);
    },
  });
  new Gauge({
    name: "spool_lag_seconds",
    help: "Age of the oldest unflushed spool data",
    labelNames: ["spool"],
    registers: [registry],
    collect() {
      for (const s of spools) this.set({ spool: s.name }, s.lagSeconds);
    },
  });
  new Gauge({
    name: "memory_bytes",
    help: "Memory of the process by part: resident (RSS), js_heap (the main thread's JavaScript heap), pglite_wasm (embedded Postgres's WebAssembly memory), chdb_tracked (what embedded ClickHouse counts as its own)",
    labelNames: ["part"],
    registers: [registry],
    async collect() {
      const m = process.memoryUsage();
      this.set({ part: "resident" }, m.rss);
      this.set({ part: "js_heap" }, m.heapTotal);
      for (const source of memorySources) {
        const parts = await source().catch(() => ({}) as Record<string, undefined>);
        for (const [part, bytes] of Object.entries(parts)) if (bytes !== undefined) this.set({ part }, bytes);
      }
    },
  });
  return metrics;
}
export type Metrics = ReturnType<typeof createMetrics>;
