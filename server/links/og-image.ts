// PUT/DELETE /links/{id}/og-image: raw image bytes → 1200x630 WebP (sharp), stored under DATA_DIR/cdn
// (served at CDN_URL) or in S3 through Bun.S3Client when S3_BUCKET is set.
import { mkdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { AppError } from "../errors";
import { tierAtLeast, type Tier } from "../tiers";
import { emitEvent } from "../events/bus";
import type { AccountRecord } from "../http/auth";
import { readCapped } from "../net/outbound";
import { getLinkOrThrow, serializeLinks, type LinksDeps } from "./service";
import * as repo from "./repository";

export const OG_MAX_BYTES = 5 * 1024 * 1024;
const TYPES = new Set(["image/png", "image/jpeg", "image/webp", "image/gif"]);

export interface OgStorage {
  cdnUrl: string;
  dataDir: string;
  s3Bucket?: string;
}

export async function uploadOgImage(deps: LinksDeps & { og: OgStorage }, account: AccountRecord, id: string, request: Request) {
  if (!tierAtLeast(account.tier as Tier, "growth")) {
    throw new AppError("TIER_UPGRADE_REQUIRED", "OG image upload needs the Growth tier or higher", { required_tier: "growth" });
  }
  const link = await getLinkOrThrow(deps.pg.db, account.id, id);
  const type = (request.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (!TYPES.has(type))
    throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Content-Type must be image/png, image/jpeg, image/webp or image/gif", {
      content_type: type || null,
    });
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > OG_MAX_BYTES) throw new AppError("PAYLOAD_TOO_LARGE", "The image must be at most 5 MB", { max_bytes: OG_MAX_BYTES });
  const bytes = await readCapped(new Response(request.body), OG_MAX_BYTES + 1);
  if (bytes.length > OG_MAX_BYTES) throw new AppError("PAYLOAD_TOO_LARGE", "The image must be at most 5 MB", { max_bytes: OG_MAX_BYTES });
  if (bytes.length === 0)
    throw new AppError("VALIDATION_ERROR", "body: the image is empty", { fields: [{ field: "body", message: "empty" }] });

  let webp: Buffer;
  try {
    webp = await sharp(bytes, { animated: false }).resize(1200, 630, { fit: "cover" }).webp({ quality: 82 }).toBuffer();
  } catch {
    throw new AppError("VALIDATION_ERROR", "body: the image could not be decoded", {
      fields: [{ field: "body", message: "not a decodable image" }],
    });
  }
  const name = `og/${link.id}-${crypto.randomUUID().slice(0, 8)}.webp`;
  await storeObject(deps.og, name, webp);
  const previous = link.ogImage;
  const url = `${deps.og.cdnUrl}/${name}`;
  await setOgImage(deps, account.id, link.id, url);
  const old = ownUpload(deps.og, link.id, previous);
  if (old) await removeObject(deps.og, old);
  return { og_image: url, message: "OG image uploaded and resized to 1200x630 WebP" };
}

export async function deleteOgImage(deps: LinksDeps & { og: OgStorage }, account: AccountRecord, id: string) {
  const link = await getLinkOrThrow(deps.pg.db, account.id, id);
  const old = ownUpload(deps.og, link.id, link.ogImage);
  if (old) await removeObject(deps.og, old);
  await setOgImage(deps, account.id, link.id, null);
  return { og_image: null, message: "OG image removed" };
}

async function setOgImage(deps: LinksDeps, accountId: string, id: string, url: string | null) {
  const row = await deps.pg.db.transaction(async (tx) => {
    const row = await repo.updateLinkRow(tx, id, { ogImage: url });
    await emitEvent(tx, accountId, "link.updated", (await serializeLinks(deps, tx, [row]))[0]);
    return row;
  });
  await deps.linkCache.invalidate(row.domainId, row.shortCode);
}

async function storeObject(og: OgStorage, name: string, data: Buffer) {
  if (og.s3Bucket) {
    await new Bun.S3Client({ bucket: og.s3Bucket }).write(name, data, { type: "image/webp" });
    return;
  }
  const dir = join(og.dataDir, "cdn", "og");
  mkdirSync(dir, { recursive: true });
  await Bun.write(join(og.dataDir, "cdn", name), data);
}

/**
 * The object name of an image this link uploaded, or null. og_image may be any URL (PATCH sets it),
 * even another link's upload under CDN_URL, so only names made for this link are ever removed.
 */
function ownUpload(og: OgStorage, linkId: string, ogImage: string | null): string | null {
  const prefix = `${og.cdnUrl}/og/${linkId}-`;
  return ogImage?.startsWith(prefix) ? ogImage.slice(og.cdnUrl.length + 1) : null;
}

async function removeObject(og: OgStorage, name: string) {
  if (!/^og\/[A-Za-z0-9-]+\.webp$/.test(name)) return;
  try {
    if (og.s3Bucket) await new Bun.S3Client({ bucket: og.s3Bucket }).delete(name);
    else unlinkSync(join(og.dataDir, "cdn", name));
  } catch {}
}
