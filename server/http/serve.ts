// Serving the app on Bun.serve: the redirect fast path first, then Elysia for everything else.
// Production mode whatever NODE_ENV says: an error that escapes the app gets the envelope from the
// `error` handler below, never Bun's development page with paths and source lines.
import type { Server } from "bun";
import type { Runtime } from "../runtime";
import { createFastRedirect } from "../redirect/fast-path";
import { AppError } from "../errors";
import { errorBody } from "./envelope";
import { describeError, internalErrorAnswer } from "./error-mapping";
import { beginRequest, rememberPeer } from "./request-context";
import { readCapped } from "../net/outbound";
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
    if (hasStreamedBody(request)) return bufferStreamedBody(request, srv, maxBody).then((r) => (r instanceof Response ? r : app.fetch(r)));
    return app.fetch(request);
  };
  const server = Bun.serve({
    port: opts.port,
    hostname: opts.hostname,
    development: false,
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

const errorResponse = (request: Request, error: AppError) => {
  const id = beginRequest(request).id;
  return Response.json(errorBody(id, error), { status: error.status, headers: { "x-request-id": id } });
};

const tooLarge = (max: number) => new AppError("PAYLOAD_TOO_LARGE", `The request body must be at most ${max} bytes`, { max_bytes: max });

/** 413 before reading a body whose declared length is over the limit. */
function bodyRefusal(request: Request, max: number): Response | null {
  if (request.method === "GET" || request.method === "HEAD") return null;
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > max) return errorResponse(request, tooLarge(max));
  return null;
}

const hasStreamedBody = (request: Request) =>
  request.method !== "GET" && request.method !== "HEAD" && request.body !== null && !request.headers.has("content-length");

/**
 * A chunked body has no declared length: read it here, up to the limit, and hand the app a request
 * holding the bytes (with the peer's address, which a new Request does not carry).
 */
async function bufferStreamedBody(request: Request, srv: Server<unknown>, max: number): Promise<Request | Response> {
  let bytes: Uint8Array;
  try {
    bytes = await readCapped(new Response(request.body), max + 1);
  } catch {
    return errorResponse(
      request,
      new AppError("VALIDATION_ERROR", "body: the request body could not be read", {
        fields: [{ field: "body", message: "could not be read" }],
      }),
    );
  }
  if (bytes.length > max) return errorResponse(request, tooLarge(max));
  let copy: Request;
  try {
    copy = new Request(request.url, { method: request.method, headers: request.headers, body: bytes as BodyInit });
  } catch {
    // Bun gives a path alone for a Host header that is not a host; a Request needs a whole URL.
    return errorResponse(
      request,
      new AppError("VALIDATION_ERROR", "header.host: is not a valid host", {
        fields: [{ field: "header.host", message: "is not a valid host" }],
      }),
    );
  }
  const peer = srv.requestIP(request)?.address;
  if (peer) rememberPeer(copy, peer);
  return copy;
}
