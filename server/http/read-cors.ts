// CORS for reading the API from other origins: the dashboard widgets embedded in a customer's page
// call the GET endpoints with X-API-Key. Reads only, no credentials (the key is explicit), so any
// origin may; journey ingest has its own rules (server/journey/cors.ts).
import { Elysia } from "elysia";
import { API_PREFIX, pathOf } from "./api-prefix";

const READ_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "retry-after, x-request-id, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset",
};

const PREFLIGHT_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, HEAD",
  "access-control-allow-headers": "X-API-Key",
  "access-control-max-age": "86400",
};

export function readCors() {
  return (
    new Elysia({ name: "read-cors" })
      // Before auth, so that browsers can read the 401/403/429 answers too.
      .onRequest(({ request, set }) => {
        if ((request.method === "GET" || request.method === "HEAD") && pathOf(request.url).startsWith(API_PREFIX + "/")) {
          Object.assign(set.headers, READ_HEADERS);
        }
      })
      // Preflight of a GET with X-API-Key (a more specific OPTIONS route, like journey ingest's, wins).
      .options(`${API_PREFIX}/*`, () => new Response(null, { status: 204, headers: PREFLIGHT_HEADERS }), { detail: { hide: true } })
  );
}
