// Serving the app on Bun.serve: the redirect fast path first, then Elysia for everything else.
// Production mode whatever NODE_ENV says: an error that escapes the app gets the envelope from the
// `error` handler below, never Bun's development page with paths and source lines.
import type { Server } from "bun";
import type { Runtime } from "../runtime";
import { createFastRedirect } from "../redirect/fast-path";
import { describeError, internalErrorAnswer } from "./error-mapping";
import { bodyRefusal, needsRebuild, rebuildRequest } from "./incoming";
import type { Logger } from "./logger";

/** Largest request body we read; above it 413 PAYLOAD_TOO_LARGE in the envelope. */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

export function serveApp(runtime: Runtime, opts: { port: number; hostname: string; maxBodyBytes?: number }) {
  const fast = createFastRedirect(runtime.deps);
  const app = runtime.app;
  const logger = runtime.deps.logger;
  const maxBody = opts.maxBodyBytes ?? MAX_BODY_BYTES;
  const toApp = (request: Request, srv: Server<unknown>): Response | Promise<Response> => {
    const refusal = bodyRefusal(request, maxBody);
    if (refusal) return refusal;
    if (needsRebuild(request)) return rebuildRequest(request, srv, maxBody).then((r) => (r instanceof Response ? r : app.fetch(r)));
    return app.fetch(request);
  };
  const server = Bun.serve({
    port: opts.port,
    hostname: opts.hostname,
    development: false,
    // Bun closes a connection after 10 s without a byte by default, cutting off a bulk create (up to
    // BULK_TIMEOUT_MS) or a test delivery to a slow receiver (up to 10 s) before its answer.
    idleTimeout: Math.min(255, Math.ceil(runtime.deps.config.bulkTimeoutMs / 1000) + 10),
    // Bun would answer a bare 413 above its own limit: the limit is ours (bodyRefusal), in the envelope.
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    fetch: (request, srv) => fast(request, srv) ?? toApp(request, srv),
    error: (error) => lastResort(logger, error),
  });
  // Elysia hands `server` to handlers (client addresses) from here.
  (app as unknown as { server: typeof server }).server = server;
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
