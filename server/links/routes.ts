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
import { deleteQrLogo, getLinkQr, uploadQrLogo } from "./qr";

export function linksRoutes(deps: FeatureDeps) {
  const ctx = {
    pg: deps.pg,
    linkCache: deps.linkCache,
    baseUrl: deps.config.baseUrl,
    allowInsecureFetch: deps.config.webhookAllowInsecure,
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
        parse: "none",
        detail: detail(),
      })
      // DELETE /links/{id}/og-image
      .delete("/links/:id/og-image", ({ account, params }) => deleteOgImage(ctx, account, params.id), {
        scope: "links:write",
        params: m.LinkIdParams,
        detail: detail(),
      })
      // GET /links/{id}/qr: the short URL (with the scan marker qr=1) as an SVG or PNG QR code
      .get("/links/:id/qr", ({ account, params, query }) => getLinkQr(ctx, account.id, params.id, checkQueryBounds(query, m.QR_BOUNDS)), {
        scope: "links:read",
        params: m.LinkIdParams,
        query: m.QrQuery,
        detail: {
          ...detail(),
          summary: "QR code of the short URL",
          description: "image/svg+xml or image/png; errors in the JSON envelope",
        },
      })
      // PUT /links/{id}/qr-logo (Growth+): raw image bytes, kept as PNG for QR codes with logo=true
      .put("/links/:id/qr-logo", ({ account, params, request }) => uploadQrLogo(ctx, account, params.id, request), {
        scope: "links:write",
        params: m.LinkIdParams,
        parse: "none",
        detail: detail(),
      })
      // DELETE /links/{id}/qr-logo
      .delete("/links/:id/qr-logo", ({ account, params }) => deleteQrLogo(ctx, account, params.id), {
        scope: "links:write",
        params: m.LinkIdParams,
        detail: detail(),
      })
  );
}

/** Uploaded images when no S3 bucket is configured: /cdn/og/<file>.webp and /cdn/qr-logo/<file>.png from DATA_DIR/cdn. */
export function cdnRoutes(deps: FeatureDeps) {
  const serve =
    (folder: string, ext: string, type: string) =>
    async ({ params }: { params: { file: string } }) => {
      if (!new RegExp(`^[A-Za-z0-9-]+\\.${ext}$`).test(params.file)) throw new AppError("NOT_FOUND", "Not found");
      const file = Bun.file(join(deps.config.dataDir, "cdn", folder, params.file));
      if (!(await file.exists())) throw new AppError("NOT_FOUND", "Not found");
      return new Response(file, { headers: { "content-type": type, "cache-control": "public, max-age=31536000, immutable" } });
    };
  return new Elysia()
    .get("/cdn/og/:file", serve("og", "webp", "image/webp"), { detail: { hide: true } })
    .get("/cdn/qr-logo/:file", serve("qr-logo", "png", "image/png"), { detail: { hide: true } });
}
