// Serving the app on Bun.serve: the features' front handler first (the redirect's fast path), then
// Elysia for everything else. Imports no feature: what stands in front comes with the runtime.
// Production mode whatever NODE_ENV says: an error that escapes the app gets the envelope from the
// `error` handler below, never Bun's development page with paths and source lines.
import type { Server } from "bun";
import type { Runtime } from "./runtime";
import type { Config } from "./config";
import { describeError, internalErrorAnswer } from "./http/error-mapping";
import { bodyRefusal, needsRebuild, rebuildRequest, routesAsIs } from "./http/incoming";
import type { Logger } from "./http/logger";

/** Largest request body we read; above it 413 PAYLOAD_TOO_LARGE in the envelope. */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

export interface ListenOptions {
  port: number;
  hostname: string;
  maxBodyBytes?: number;
}

export function serveApp(runtime: Runtime, opts: ListenOptions) {
  const server = Bun.serve({ ...serverOptions(runtime.deps.config, opts), ...appHandlers(runtime, opts) });
  return handTo(runtime, server);
}

/**
 * Binds the port before the runtime opens: with PORT=0 the system picks it and it is known only once
 * bound, while BASE_URL's default (and every URL made from it) must name it. A request that arrives
 * before `serve` waits for it.
 */
export function bindFirst(config: Config, opts: ListenOptions) {
  let open!: (handlers: ReturnType<typeof appHandlers>) => void;
  const ready = new Promise<ReturnType<typeof appHandlers>>((resolve) => (open = resolve));
  const options = serverOptions(config, opts);
  const server = Bun.serve({ ...options, fetch: (request, srv) => ready.then((h) => h.fetch(request, srv)) });
  const port = server.port ?? opts.port;
  return {
    port,
    serve(runtime: Runtime) {
      const handlers = appHandlers(runtime, opts);
      server.reload({ ...options, port, ...handlers });
      open(handlers);
      return handTo(runtime, server);
    },
  };
}

function serverOptions(config: Config, opts: ListenOptions) {
  return {
    port: opts.port,
    hostname: opts.hostname,
    development: false,
    // Bun closes a connection after 10 s without a byte by default, cutting off a bulk create (up to
    // BULK_TIMEOUT_MS) or a test delivery to a slow receiver (up to 10 s) before its answer.
    idleTimeout: Math.min(255, Math.ceil(config.bulkTimeoutMs / 1000) + 10),
    // Bun would answer a bare 413 above its own limit: the limit is ours (bodyRefusal), in the envelope.
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
  };
}

function appHandlers(runtime: Runtime, opts: ListenOptions) {
  const front = runtime.front;
  const app = runtime.app;
  const logger = runtime.deps.logger;
  const maxBody = opts.maxBodyBytes ?? MAX_BODY_BYTES;
  const toApp = (request: Request, srv: Server<unknown>): Response | Promise<Response> => {
    // A body a route streams itself (an import's file) goes on unread, within that route's own limit.
    const streamed = request.method === "POST" && routesAsIs(request) ? runtime.streamedBody(request) : undefined;
    if (streamed !== undefined) return bodyRefusal(request, streamed) ?? app.fetch(request);
    const refusal = bodyRefusal(request, maxBody);
    if (refusal) return refusal;
    if (needsRebuild(request)) return rebuildRequest(request, srv, maxBody).then((r) => (r instanceof Response ? r : app.fetch(r)));
    return app.fetch(request);
  };
  return {
    fetch: (request: Request, srv: Server<unknown>) => front(request, srv) ?? toApp(request, srv),
    error: (error: unknown) => lastResort(logger, error),
  };
}

function handTo<S extends Server<unknown>>(runtime: Runtime, server: S): S {
  // Elysia hands `server` to handlers (client addresses) from here.
  (runtime.app as unknown as { server: S }).server = server;
  return server;
}

/** Whatever escaped the app: logged, answered with a 500 envelope built from constants. */
function lastResort(logger: Logger, error: unknown): Response {
  const requestId = crypto.randomUUID();
  try {
    logger.error({ request_id: requestId, msg: "unhandled error outside the app", error: describeError(error) });
  } catch {
    // nowhere left to report
  }
  const answer = internalErrorAnswer(requestId);
  return Response.json(answer.body, { status: answer.status, headers: answer.headers });
}
