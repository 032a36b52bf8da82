// What a request must be before the app sees it: a body within the size limit, answered 413 in the
// envelope otherwise, and a URL from which Elysia reads the same path as we do.
//
// Elysia takes the path to be what follows the first "/" at or after index 11 of request.url (it
// assumes "http://" and a host of 4 characters or more). Bun builds request.url from the Host header,
// so `Host: a` with `/abc/admin/v1/accounts` would be routed to /admin/v1/accounts while every check
// that reads the path (the admin token, CORS) saw /abc/admin/v1/accounts; an invalid Host gives a
// path alone. Such a request is rebuilt on a placeholder origin: the Host header stays as it came.
import type { Server } from "bun";
import { AppError } from "../errors";
import { errorBody } from "./envelope";
import { beginRequest, rememberPeer } from "./request-context";
import { readCapped } from "../net/outbound";

const PLACEHOLDER_ORIGIN = "http://host.invalid";
const ELYSIA_PATH_FROM = 11;

export const errorResponse = (request: Request, error: AppError) => {
  const id = beginRequest(request).id;
  return Response.json(errorBody(id, error), { status: error.status, headers: { "x-request-id": id } });
};

const tooLarge = (max: number) => new AppError("PAYLOAD_TOO_LARGE", `The request body must be at most ${max} bytes`, { max_bytes: max });

/** 413 before reading a body whose declared length is over the limit. */
export function bodyRefusal(request: Request, max: number): Response | null {
  if (request.method === "GET" || request.method === "HEAD") return null;
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > max) return errorResponse(request, tooLarge(max));
  return null;
}

const pathStart = (url: string) => (url.startsWith("/") ? 0 : url.indexOf("/", url.indexOf("//") + 2));

const hasStreamedBody = (request: Request) =>
  request.method !== "GET" && request.method !== "HEAD" && request.body !== null && !request.headers.has("content-length");

/** Whether Elysia reads the same path from request.url as we do (else the request must be rebuilt). */
export const routesAsIs = (request: Request) => pathStart(request.url) >= ELYSIA_PATH_FROM;

/** Whether the request must be rebuilt: a chunked body to read within the limit, or a URL Elysia would misread. */
export const needsRebuild = (request: Request) => pathStart(request.url) < ELYSIA_PATH_FROM || hasStreamedBody(request);

/**
 * The request with its body read (up to the limit) and a URL Elysia routes by its real path, keeping
 * the method, the headers and the peer's address (which Bun knows only for the original).
 */
export async function rebuildRequest(request: Request, srv: Server<unknown>, max: number): Promise<Request | Response> {
  let body: Uint8Array | undefined;
  if (request.method !== "GET" && request.method !== "HEAD" && request.body !== null) {
    try {
      body = await readCapped(new Response(request.body), max + 1);
    } catch {
      return errorResponse(
        request,
        new AppError("VALIDATION_ERROR", "body: the request body could not be read", {
          fields: [{ field: "body", message: "could not be read" }],
        }),
      );
    }
    if (body.length > max) return errorResponse(request, tooLarge(max));
  }
  const start = pathStart(request.url);
  const url = start < ELYSIA_PATH_FROM ? PLACEHOLDER_ORIGIN + (start < 0 ? "/" : request.url.slice(start)) : request.url;
  const copy = new Request(url, { method: request.method, headers: request.headers, body: body as BodyInit | undefined });
  const peer = srv.requestIP(request)?.address;
  if (peer) rememberPeer(copy, peer);
  return copy;
}
