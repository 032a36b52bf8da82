// GET /links/{id}/qr (the short URL as a QR code, marked so that scans are told apart from clicks) and
// PUT/DELETE /links/{id}/qr-logo (the logo it may carry, stored as uploads are, Growth+).
import { validationError } from "../errors";
import type { AccountRecord } from "../http/auth";
import type { QrQueryInput } from "./model";
import { getLinkOrThrow, serializeLinks, type LinksDeps } from "./service";
import { setLinkImage } from "./og-image";
import { contrastRatio, luminance, qrModulesAcross, renderQr, type QrLevel } from "./qr-code";
import {
  checkUploadTier,
  convertImage,
  ownUpload,
  readObject,
  readUploadedImage,
  removeObject,
  storeObject,
  type OgStorage,
} from "./uploads";

/** Appended to the short URL a QR code encodes; the redirect strips it and records a scan. */
export const QR_MARKER_QUERY = "?qr=1";
/** WCAG's minimum for graphics; below it phone cameras misread codes in poor light. */
export const MIN_QR_CONTRAST = 3;
const QR_LOGO_FOLDER = "qr-logo";

type Deps = LinksDeps & { og: OgStorage };

/** #rgb, #rrggbb, with or without # → #rrggbb (lower case). */
function hexColour(value: string, field: string): string {
  const hex = value.replace(/^#/, "").toLowerCase();
  if (/^[0-9a-f]{3}$/.test(hex)) return `#${[...hex].map((c) => c + c).join("")}`;
  if (/^[0-9a-f]{6}$/.test(hex)) return `#${hex}`;
  throw validationError(field, "must be a hex colour (#rgb or #rrggbb)");
}

export async function getLinkQr(deps: Deps, accountId: string, id: string, q: QrQueryInput): Promise<Response> {
  const row = await getLinkOrThrow(deps.pg.db, accountId, id);
  const fg = hexColour(q.fg ?? "#000000", "query.fg");
  const bg = hexColour(q.bg ?? "#ffffff", "query.bg");
  if (luminance(fg) >= luminance(bg))
    throw validationError("query.fg", "must be darker than bg (many scanners cannot read inverted codes)");
  const ratio = contrastRatio(fg, bg);
  if (ratio < MIN_QR_CONTRAST)
    throw validationError(
      "query.fg",
      `contrast with bg is ${ratio.toFixed(2)}:1; at least ${MIN_QR_CONTRAST}:1 is needed to scan reliably`,
    );
  const withLogo = q.logo === true;
  const level: QrLevel = q.level ?? (withLogo ? "H" : "M");
  if (withLogo && (level === "L" || level === "M"))
    throw validationError("query.level", "must be Q or H with a logo (the logo covers modules that error correction restores)");
  let logo: Uint8Array | undefined;
  if (withLogo) {
    const name = ownUpload(deps.og, QR_LOGO_FOLDER, row.id, row.qrLogo);
    logo = (name && (await readObject(deps.og, name))) || undefined;
    if (!logo) throw validationError("query.logo", "the link has no uploaded logo (PUT /links/{id}/qr-logo)");
  }
  const [link] = await serializeLinks(deps, deps.pg.db, [row]);
  const text = link.short_url + QR_MARKER_QUERY;
  const margin = q.margin ?? 4;
  const size = q.size ?? 512;
  const across = qrModulesAcross(text, level, margin);
  if (size < across) throw validationError("query.size", `must be at least ${across} pixels for this code (one pixel per module)`);
  const format = q.format ?? "svg";
  const image = await renderQr(text, { format, size, margin, level, fg, bg, logo });
  return new Response(image.body as Uint8Array<ArrayBuffer>, {
    headers: {
      "content-type": image.type,
      "content-disposition": `inline; filename="${row.shortCode}.${format}"`,
      "cache-control": "private, max-age=0",
    },
  });
}

export async function uploadQrLogo(deps: Deps, account: AccountRecord, id: string, request: Request) {
  checkUploadTier(account, "QR logo upload");
  const link = await getLinkOrThrow(deps.pg.db, account.id, id);
  const bytes = await readUploadedImage(request);
  const png = await convertImage(bytes, (image) => image.resize(512, 512, { fit: "inside", withoutEnlargement: true }).png());
  const name = `${QR_LOGO_FOLDER}/${link.id}-${crypto.randomUUID().slice(0, 8)}.png`;
  await storeObject(deps.og, name, png, "image/png");
  const url = `${deps.og.cdnUrl}/${name}`;
  await setLinkImage(deps, account.id, link.id, { qrLogo: url });
  const old = ownUpload(deps.og, QR_LOGO_FOLDER, link.id, link.qrLogo);
  if (old) await removeObject(deps.og, old);
  return { qr_logo: url, message: "QR logo uploaded (PNG, at most 512x512); use it with GET /links/{id}/qr?logo=true" };
}

export async function deleteQrLogo(deps: Deps, account: AccountRecord, id: string) {
  const link = await getLinkOrThrow(deps.pg.db, account.id, id);
  const old = ownUpload(deps.og, QR_LOGO_FOLDER, link.id, link.qrLogo);
  if (old) await removeObject(deps.og, old);
  await setLinkImage(deps, account.id, link.id, { qrLogo: null });
  return { qr_logo: null, message: "QR logo removed" };
}
