// Links API (create, read, update, delete, restore, list, bulk, images, QR codes) and the local CDN
// for uploaded images.
import { Elysia } from "elysia";
import { join } from "node:path";
import { API_PREFIX } from "../http/api-prefix";
import type { LinksFeatureDeps } from "./feature";
import { Envelope, Paginated } from "../http/envelope";
import { checkQueryBounds } from "../http/query-bounds";
import { AppError } from "../errors";
import * as m from "./model";
import * as links from "./service";
import { bulkCreateLinks } from "./bulk";
import { deleteOgImage, uploadOgImage } from "./og-image";
import { operation } from "../openapi/operation";
import { MessageResult } from "../openapi/envelope";
import { t } from "elysia";
import { listDeletedLinks } from "./trash";
import { deleteQrLogo, getLinkQr, uploadQrLogo } from "./qr";
import { linksExportStream } from "./export";

export function linksRoutes(deps: LinksFeatureDeps) {
  const ctx = {
    pg: deps.pg,
    ch: deps.ch,
    linkCache: deps.linkCache,
    baseUrl: deps.config.baseUrl,
    outbound: deps.outbound,
    bulkTimeoutMs: deps.config.bulkTimeoutMs,
    og: { cdnUrl: deps.config.cdnUrl, dataDir: deps.config.dataDir, s3Bucket: deps.config.s3Bucket },
  };
  return (
    new Elysia({ prefix: API_PREFIX })
      .use(deps.auth)
      // GET /links/export: the links list as CSV, in the format POST /imports reads back
      .get(
        "/links/export",
        ({ account }) =>
          new Response(linksExportStream(deps.pg.db, account.id, deps.config.baseUrl), {
            headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": 'attachment; filename="links.csv"' },
          }),
        {
          scope: "links:read",
          detail: operation({
            id: "exportLinks",
            tag: "Links",
            summary: "Export the links list as CSV",
            description:
              "Every live link of the account, oldest first, streamed, in the columns `short_url, domain, short_code, original_url, title, description, tags, created_at, imported_clicks` (tags joined with `|`, `domain` empty for this server's own host). RFC 4180 quoting; a cell starting with = + - @ is prefixed with an apostrophe. `POST /imports` reads the file back (source `svc`): on another server, or this one after a loss, the links come back with their codes.",
            responses: { 200: { description: "The CSV file", media: ["text/csv"] } },
          }),
        },
      )
      // GET /links
      .get(
        "/links",
        async ({ account, query }) => Paginated.of(await links.listLinks(ctx, account.id, checkQueryBounds(query, m.LIST_LINKS_BOUNDS))),
        {
          scope: "links:read",
          query: m.ListLinksQuery,
          detail: operation({
            id: "listLinks",
            tag: "Links",
            summary: "List links",
            description: "Filters combine; `tags` matches links having any of them. Pages neither repeat nor skip links.",
            responses: { 200: { description: "One page of links", data: t.Array(m.Link), paginated: true } },
          }),
        },
      )
      // POST /links
      .post("/links", async ({ account, body }) => new Envelope(await links.createLink(ctx, account, body), 201), {
        scope: "links:write",
        body: m.CreateLinkBody,
        detail: operation({
          id: "createLink",
          tag: "Links",
          summary: "Create a link",
          description:
            "`custom_alias` needs the Basic tier, `campaign_id` the Growth tier. Title and description are read from the destination when omitted.",
          responses: { 201: { description: "The link", data: m.Link } },
          errors: ["TIER_UPGRADE_REQUIRED", "NOT_FOUND", "ALIAS_TAKEN"],
        }),
      })
      // POST /links/bulk
      .post(
        "/links/bulk",
        async ({ account, body }) => {
          const { status, result } = await bulkCreateLinks(ctx, account, body);
          return new Envelope(result, status, status === 201);
        },
        {
          scope: "links:write",
          body: m.BulkCreateBody,
          detail: operation({
            id: "bulkCreateLinks",
            tag: "Links",
            summary: "Create links in bulk",
            description: "Items are validated one by one; at most the tier's batch maximum per request, processed within BULK_TIMEOUT_MS.",
            body: { description: "Link create objects", content: { "application/json": t.Array(m.CreateLinkBody, { minItems: 1 }) } },
            responses: {
              201: { description: "Every link was created", data: m.BulkCreateResult },
              207: { description: "Some links were created; see `failed`", data: m.BulkCreateResult, success: false },
              422: { description: "No link was created", data: m.BulkCreateResult, success: false },
            },
            errors: [{ code: "REQUEST_TIMEOUT", details: m.BulkCreateResult }],
          }),
        },
      )
      // GET /links/deleted: the trash, deleted links that can still be restored (ours; the console lists it)
      .get(
        "/links/deleted",
        async ({ account, query }) => Paginated.of(await listDeletedLinks(ctx, account.id, checkQueryBounds(query, m.LIST_LINKS_BOUNDS))),
        {
          scope: "links:read",
          query: m.DeletedLinksQuery,
          detail: operation({
            id: "listDeletedLinks",
            tag: "Links",
            summary: "List deleted links that can still be restored",
            description: "Newest deletion first; a link stays here for 7 days after DELETE /links/{id}, then it is purged.",
            responses: { 200: { description: "One page of deleted links", data: t.Array(m.DeletedLink), paginated: true } },
          }),
        },
      )
      // GET /links/{id}
      .get("/links/:id", ({ account, params }) => links.getLink(ctx, account.id, params.id), {
        scope: "links:read",
        params: m.LinkIdParams,
        detail: operation({
          id: "getLink",
          tag: "Links",
          summary: "Get a link",
          responses: { 200: { description: "The link", data: m.Link } },
          errors: ["NOT_FOUND"],
        }),
      })
      // GET /links/{id}/destinations
      .get("/links/:id/destinations", ({ account, params }) => links.getLinkDestinations(ctx, account.id, params.id), {
        scope: "links:read",
        params: m.LinkIdParams,
        detail: operation({
          id: "getLinkDestinations",
          tag: "Links",
          summary: "Where a link has pointed",
          description: "The current destination first (`until` null), then the earlier ones, newest first.",
          responses: { 200: { description: "The destinations", data: t.Array(m.LinkDestination) } },
          errors: ["NOT_FOUND"],
        }),
      })
      // PATCH /links/{id}
      .patch("/links/:id", ({ account, params, body }) => links.updateLink(ctx, account, params.id, body), {
        scope: "links:write",
        params: m.LinkIdParams,
        body: m.UpdateLinkBody,
        detail: operation({
          id: "updateLink",
          tag: "Links",
          summary: "Update a link",
          description:
            'A new `url` (or `original_url`) changes the destination: the short code and the clicks stay, the old URL is kept (GET /links/{id}/destinations). Tags replace; UTM fields merge (`""` clears).',
          responses: { 200: { description: "The updated link", data: m.Link } },
          errors: ["TIER_UPGRADE_REQUIRED", "NOT_FOUND", "ALIAS_TAKEN"],
        }),
      })
      // DELETE /links/{id}
      .delete("/links/:id", ({ account, params }) => links.deleteLink(ctx, account.id, params.id), {
        scope: "links:delete",
        params: m.LinkIdParams,
        detail: operation({
          id: "deleteLink",
          tag: "Links",
          summary: "Delete a link",
          description: "Soft delete: the link stops resolving at once and can be restored for 7 days.",
          responses: { 200: { description: "Deleted; the message says until when it can be restored", data: MessageResult } },
          errors: ["NOT_FOUND"],
        }),
      })
      // POST /links/{id}/restore (within 7 days of the delete, else 410)
      .post("/links/:id/restore", ({ account, params }) => links.restoreLink(ctx, account.id, params.id), {
        scope: "links:write",
        params: m.LinkIdParams,
        detail: operation({
          id: "restoreLink",
          tag: "Links",
          summary: "Restore a deleted link",
          responses: { 200: { description: "The link, resolving again", data: m.Link } },
          errors: ["NOT_FOUND", "GONE"],
        }),
      })
      // PUT /links/{id}/og-image
      .put("/links/:id/og-image", ({ account, params, request }) => uploadOgImage(ctx, account, params.id, request), {
        scope: "links:write",
        params: m.LinkIdParams,
        // The handler reads the raw bytes itself (a parser that takes no body; "none" fails next to a global parse hook).
        parse: () => null,
        detail: operation({
          id: "uploadLinkOgImage",
          tag: "Links",
          summary: "Upload a preview image",
          description: "Growth tier or higher. Raw image bytes, at most 5 MB; stored as 1200×630 WebP.",
          body: {
            description: "The image",
            content: { "image/png": null, "image/jpeg": null, "image/webp": null, "image/gif": null },
          },
          responses: { 200: { description: "The image's address", data: m.OgImageResult } },
          errors: ["TIER_UPGRADE_REQUIRED", "NOT_FOUND", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"],
        }),
      })
      // DELETE /links/{id}/og-image
      .delete("/links/:id/og-image", ({ account, params }) => deleteOgImage(ctx, account, params.id), {
        scope: "links:write",
        params: m.LinkIdParams,
        detail: operation({
          id: "deleteLinkOgImage",
          tag: "Links",
          summary: "Remove the preview image",
          responses: { 200: { description: "Removed (`og_image` is null)", data: m.OgImageResult } },
          errors: ["NOT_FOUND"],
        }),
      })
      // GET /links/{id}/qr: the short URL (with the scan marker qr=1) as an SVG or PNG QR code
      .get("/links/:id/qr", ({ account, params, query }) => getLinkQr(ctx, account.id, params.id, checkQueryBounds(query, m.QR_BOUNDS)), {
        scope: "links:read",
        params: m.LinkIdParams,
        query: m.QrQuery,
        detail: operation({
          id: "getLinkQr",
          tag: "Links",
          summary: "QR code of the short URL",
          description:
            "Encodes the short URL with the scan marker `qr=1`, which the redirect strips and click analytics report as `source=qr`. `fg` must be darker than `bg` with a contrast of at least 3:1; a logo needs level Q or H.",
          responses: { 200: { description: "The QR code image", media: ["image/svg+xml", "image/png"] } },
          errors: ["NOT_FOUND"],
        }),
      })
      // PUT /links/{id}/qr-logo (Growth+): raw image bytes, kept as PNG for QR codes with logo=true
      .put("/links/:id/qr-logo", ({ account, params, request }) => uploadQrLogo(ctx, account, params.id, request), {
        scope: "links:write",
        params: m.LinkIdParams,
        parse: () => null,
        detail: operation({
          id: "uploadLinkQrLogo",
          tag: "Links",
          summary: "Upload a logo for the link's QR codes",
          description: "Growth tier or higher. Raw image bytes, at most 5 MB; kept as PNG of at most 512×512.",
          body: {
            description: "The image",
            content: { "image/png": null, "image/jpeg": null, "image/webp": null, "image/gif": null },
          },
          responses: { 200: { description: "The logo's address", data: m.QrLogoResult } },
          errors: ["TIER_UPGRADE_REQUIRED", "NOT_FOUND", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"],
        }),
      })
      // DELETE /links/{id}/qr-logo
      .delete("/links/:id/qr-logo", ({ account, params }) => deleteQrLogo(ctx, account, params.id), {
        scope: "links:write",
        params: m.LinkIdParams,
        detail: operation({
          id: "deleteLinkQrLogo",
          tag: "Links",
          summary: "Remove the QR logo",
          responses: { 200: { description: "Removed (`qr_logo` is null)", data: m.QrLogoResult } },
          errors: ["NOT_FOUND"],
        }),
      })
  );
}

/** Uploaded images when no S3 bucket is configured: /cdn/og/<file>.webp and /cdn/qr-logo/<file>.png from DATA_DIR/cdn. */
export function cdnRoutes(deps: Pick<LinksFeatureDeps, "config">) {
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
