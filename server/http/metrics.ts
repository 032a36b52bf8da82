// Prometheus metrics (prom-client): one registry per app instance, so tests stay isolated.
import { Counter, Gauge, Histogram, Registry } from "prom-client";

export interface SpoolGaugeSource { name: string; unflushedBytes: number; lagSeconds: number }

export function createMetrics() {
  const registry = new Registry();
  const spools: SpoolGaugeSource[] = [];
  const metrics = {
    registry,
    requests: new Counter({ name: "http_requests_total", help: "HTTP requests by route and status", labelNames: ["method", "route", "status"], registers: [registry] }),
    latency: new Histogram({
      name: "http_request_duration_seconds", help: "HTTP request latency", labelNames: ["method", "route"],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5], registers: [registry],
    }),
    eventsAccepted: new Counter({ name: "events_accepted_total", help: "Events accepted into the spool", labelNames: ["stream"], registers: [registry] }),
    eventsStored: new Counter({ name: "events_stored_total", help: "Events inserted into ClickHouse", labelNames: ["stream"], registers: [registry] }),
    eventsRejected: new Counter({ name: "events_rejected_total", help: "Events rejected at ingest", labelNames: ["stream", "reason"], registers: [registry] }),
    webhookDeliveries: new Counter({ name: "webhook_deliveries_total", help: "Webhook delivery attempts by outcome", labelNames: ["outcome"], registers: [registry] }),
    watchSpool(source: SpoolGaugeSource) { spools.push(source); },
  };
  new Gauge({
    name: "spool_unflushed_bytes", help: "Bytes in the spool not yet in ClickHouse", labelNames: ["spool"], registers: [registry],
    collect() { for (const s of spools) this.set({ spool: s.name }, s.unflushedBytes); },
  });
  new Gauge({
    name: "spool_lag_seconds", help: "Age of the oldest unflushed spool data", labelNames: ["spool"], registers: [registry],
    collect() { for (const s of spools) this.set({ spool: s.name }, s.lagSeconds); },
  });
  return metrics;
}
export type Metrics = ReturnType<typeof createMetrics>;
