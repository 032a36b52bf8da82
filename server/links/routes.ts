// Links API (API_SPEC.md "Links"), plus restore (DESIGN.md) and the local CDN for uploaded images.
import { Elysia } from "elysia";
import { join } from "node:path";
import type { FeatureDeps } from "../app";
import { API_PREFIX } from "../app";
import { Envelope } from "../http/envelope";
import { checkQueryBounds } from "../http/query-bounds";
import { AppError } from "../errors";
import * as m from "./model";
import * as links from "./service";
import { bulkCreateLinks } from "./bulk";
import { deleteOgImage, uploadOgImage } from "./og-image";

export function linksRoutes(deps: FeatureDeps) {
  const ctx = {
    pg: deps.pg,
    linkCache: deps.linkCache,
    baseUrl: deps.config.baseUrl,
    outbound: deps.outbound,
    bulkTimeoutMs: deps.config.bulkTimeoutMs,
    og: { cdnUrl: deps.config.cdnUrl, dataDir: deps.config.dataDir, s3Bucket: deps.config.s3Bucket },
  };
  // A fresh object per route: Elysia merges macro details into it in place.
  const detail = () => ({ tags: ["Links"] });
  return (
    new Elysia({ prefix: API_PREFIX })
      .use(deps.auth)
      // GET /links
      .get("/links", ({ account, query }) => links.listLinks(ctx, account.id, checkQueryBounds(query, m.LIST_LINKS_BOUNDS)), {
        scope: "links:read",
        query: m.ListLinksQuery,
        detail: detail(),
      })
      // POST /links
      .post("/links", async ({ account, body }) => new Envelope(await links.createLink(ctx, account, body), 201), {
        scope: "links:write",
        body: m.CreateLinkBody,
        detail: detail(),
      })
      // POST /links/bulk
      .post(
        "/links/bulk",
        async ({ account, body }) => {
          const { status, result } = await bulkCreateLinks(ctx, account, body);
          return new Envelope(result, status, status === 201);
        },
        { scope: "links:write", body: m.BulkCreateBody, detail: detail() },
      )
      // GET /links/{id}
      .get("/links/:id", ({ account, params }) => links.getLink(ctx, account.id, params.id), {
        scope: "links:read",
        params: m.LinkIdParams,
        detail: detail(),
      })
      // PATCH /links/{id}
      .patch("/links/:id", ({ account, params, body }) => links.updateLink(ctx, account, params.id, body), {
        scope: "links:write",
        params: m.LinkIdParams,
        body: m.UpdateLinkBody,
        detail: detail(),
      })
      // DELETE /links/{id}
      .delete("/links/:id", ({ account, params }) => links.deleteLink(ctx, account.id, params.id), {
        scope: "links:delete",
        params: m.LinkIdParams,
        detail: detail(),
      })
      // POST /links/{id}/restore (DESIGN.md: within 7 days, else 410)
      .post("/links/:id/restore", ({ account, params }) => links.restoreLink(ctx, account.id, params.id), {
        scope: "links:write",
        params: m.LinkIdParams,
        detail: detail(),
      })
      // PUT /links/{id}/og-image
      .put("/links/:id/og-image", ({ account, params, request }) => uploadOgImage(ctx, account, params.id, request), {
        scope: "links:write",
        params: m.LinkIdParams,
        // The handler reads the raw bytes itself (a parser that takes no body; "none" fails next to a global parse hook).
        parse: () => null,
        detail: detail(),
      })
      // DELETE /links/{id}/og-image
      .delete("/links/:id/og-image", ({ account, params }) => deleteOgImage(ctx, account, params.id), {
        scope: "links:write",
        params: m.LinkIdParams,
        detail: detail(),
      })
  );
}

/** Uploaded images when no S3 bucket is configured: GET /cdn/og/<file>.webp from DATA_DIR/cdn. */
export function cdnRoutes(deps: FeatureDeps) {
  return new Elysia().get(
    "/cdn/og/:file",
    async ({ params }) => {
      if (!/^[A-Za-z0-9-]+\.webp$/.test(params.file)) throw new AppError("NOT_FOUND", "Not found");
      const file = Bun.file(join(deps.config.dataDir, "cdn", "og", params.file));
      if (!(await file.exists())) throw new AppError("NOT_FOUND", "Not found");
      return new Response(file, { headers: { "content-type": "image/webp", "cache-control": "public, max-age=31536000, immutable" } });
    },
    { detail: { hide: true } },
  );
}
