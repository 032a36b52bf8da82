// Serves the OpenAPI documents and the reference page: GET /public-api/v1/docs (Swagger UI),
// /public-api/v1/docs/json (the public API), /admin/v1/openapi.json (the admin API, behind its bearer).
import { Elysia, type InternalRoute } from "elysia";
import { ADMIN_PREFIX, API_PREFIX } from "../http/api-prefix";
import { buildDocument, type BuiltDocument } from "./document";
import { ADMIN_TAGS, PUBLIC_TAGS } from "./operation";
import { assetFile, initScript, PAGE_ASSETS, PAGE_CSP, referencePage } from "./reference-page";

export const DOCS_PATH = `${API_PREFIX}/docs`;
export const PUBLIC_DOCUMENT_PATH = `${DOCS_PATH}/json`;
export const ADMIN_DOCUMENT_PATH = `${ADMIN_PREFIX}/openapi.json`;
const VERSION = "1.0.0";

const PUBLIC_DESCRIPTION = `Link shortening, click analytics and visitor journey tracking.

Every request carries an API key in \`X-API-Key\`; each operation names the permission it needs.
Answers use one envelope: \`{ success, data, meta: { request_id, timestamp } }\` (lists add
\`page, per_page, total, total_pages\` to \`meta\`); errors are \`{ success: false, error: { code, message,
details }, meta: { request_id, timestamp, status } }\`, except 429 \`RATE_LIMIT_EXCEEDED\`, which is
\`{ success: false, error: "RATE_LIMIT_EXCEEDED", message }\` with \`Retry-After\`. Rate-limited
operations carry \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\`; journey ingest
is exempt.`;

const ADMIN_DESCRIPTION = `Administration of accounts, API keys and team members, for operators.
Every request carries \`Authorization: Bearer <ADMIN_TOKEN>\`; without ADMIN_TOKEN on the server the
whole admin API (this document included) answers 404.`;

/** Both documents of the app whose route table `routes` is. */
export function describeApi(routes: readonly InternalRoute[]): { public: BuiltDocument; admin: BuiltDocument } {
  return {
    public: buildDocument(routes, {
      title: "svc public API",
      description: PUBLIC_DESCRIPTION,
      version: VERSION,
      prefix: API_PREFIX,
      tags: PUBLIC_TAGS,
      security: "ApiKey",
      skip: (path) => path === DOCS_PATH || path.startsWith(DOCS_PATH + "/"),
    }),
    admin: buildDocument(routes, {
      title: "svc admin API",
      description: ADMIN_DESCRIPTION,
      version: VERSION,
      prefix: ADMIN_PREFIX,
      tags: ADMIN_TAGS,
      security: "AdminToken",
      skip: (path) => path === ADMIN_DOCUMENT_PATH,
    }),
  };
}

const hide = { detail: { hide: true } };
const json = (text: string) =>
  new Response(text, { headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-cache" } });

/** `routes` is read on the first request, when every feature has added its routes. */
export function openApiRoutes(routes: () => readonly InternalRoute[]) {
  let documents: { public: string; admin: string } | undefined;
  const texts = () => {
    if (!documents) {
      const built = describeApi(routes());
      documents = { public: JSON.stringify(built.public.document), admin: JSON.stringify(built.admin.document) };
    }
    return documents;
  };
  const page = referencePage(DOCS_PATH, "svc public API reference");
  const init = initScript(DOCS_PATH);
  const app = new Elysia({ name: "openapi" })
    .get(
      DOCS_PATH,
      () => new Response(page, { headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": PAGE_CSP } }),
      hide,
    )
    .get(`${DOCS_PATH}/init.js`, () => new Response(init, { headers: { "content-type": "text/javascript; charset=utf-8" } }), hide)
    .get(PUBLIC_DOCUMENT_PATH, () => json(texts().public), hide)
    .get(ADMIN_DOCUMENT_PATH, () => json(texts().admin), hide);
  for (const [name, [, type]] of Object.entries(PAGE_ASSETS)) {
    app.get(
      `${DOCS_PATH}/${name}`,
      () => new Response(Bun.file(assetFile(name)), { headers: { "content-type": type, "cache-control": "public, max-age=3600" } }),
      hide,
    );
  }
  return app;
}
