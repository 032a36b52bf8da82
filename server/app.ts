// createApp: the HTTP plumbing every request goes through, then the features' routes in order.
// No I/O at import time.
import { Elysia, type AnyElysia } from "elysia";
import { httpPlumbing } from "./http/plumbing";
import { readCors } from "./http/read-cors";
import type { Logger } from "./http/logger";
import type { Metrics } from "./http/metrics";

export function createApp(deps: { metrics: Metrics; logger: Logger }, routes: readonly AnyElysia[]) {
  const app = new Elysia().use(httpPlumbing(deps)).use(readCors());
  for (const r of routes) app.use(r);
  return app;
}

export type App = ReturnType<typeof createApp>;
