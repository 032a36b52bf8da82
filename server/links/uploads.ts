// Images uploaded for links (OG images, QR logos): the upload's checks (type, size) and where the files
// live: DATA_DIR/cdn, served at CDN_URL, or S3 through Bun.S3Client when S3_BUCKET is set.
import { mkdirSync, unlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import sharp, { type Sharp } from "sharp";
import { AppError } from "../errors";
import { tierAtLeast, type Tier } from "../tiers";
import type { AccountRecord } from "../http/auth";
import { readCapped } from "../net/outbound";

export const UPLOAD_MAX_BYTES = 5 * 1024 * 1024;
const TYPES = new Set(["image/png", "image/jpeg", "image/webp", "image/gif"]);
/** Object names we make: og/<link id>-<random>.webp and qr-logo/<link id>-<random>.png. */
const OBJECT_NAME = /^(og\/[A-Za-z0-9-]+\.webp|qr-logo\/[A-Za-z0-9-]+\.png)$/;

export interface OgStorage {
  cdnUrl: string;
  dataDir: string;
  s3Bucket?: string;
}

/** Uploads need the Growth tier or higher. */
export function checkUploadTier(account: AccountRecord, what: string) {
  if (!tierAtLeast(account.tier as Tier, "growth")) {
    throw new AppError("TIER_UPGRADE_REQUIRED", `${what} needs the Growth tier or higher`, { required_tier: "growth" });
  }
}

/** The raw image bytes of an upload: png, jpeg, webp or gif, at most 5 MB (413), other types 415. */
export async function readUploadedImage(request: Request): Promise<Uint8Array> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (!TYPES.has(type))
    throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Content-Type must be image/png, image/jpeg, image/webp or image/gif", {
      content_type: type || null,
    });
  const tooLarge = () => new AppError("PAYLOAD_TOO_LARGE", "The image must be at most 5 MB", { max_bytes: UPLOAD_MAX_BYTES });
  if (Number(request.headers.get("content-length") ?? 0) > UPLOAD_MAX_BYTES) throw tooLarge();
  const bytes = await readCapped(new Response(request.body), UPLOAD_MAX_BYTES + 1);
  if (bytes.length > UPLOAD_MAX_BYTES) throw tooLarge();
  if (bytes.length === 0)
    throw new AppError("VALIDATION_ERROR", "body: the image is empty", { fields: [{ field: "body", message: "empty" }] });
  return bytes;
}

/** Runs a sharp pipeline over uploaded bytes; an undecodable image is a 400 naming the body. */
export async function convertImage(bytes: Uint8Array, pipeline: (image: Sharp) => Sharp): Promise<Buffer> {
  try {
    return await pipeline(sharp(bytes, { animated: false })).toBuffer();
  } catch {
    throw new AppError("VALIDATION_ERROR", "body: the image could not be decoded", {
      fields: [{ field: "body", message: "not a decodable image" }],
    });
  }
}

export async function storeObject(og: OgStorage, name: string, data: Buffer, type: string) {
  if (og.s3Bucket) {
    await new Bun.S3Client({ bucket: og.s3Bucket }).write(name, data, { type });
    return;
  }
  const path = join(og.dataDir, "cdn", name);
  mkdirSync(dirname(path), { recursive: true });
  await Bun.write(path, data);
}

/** The stored bytes of an object we made (never a fetch of a URL). */
export async function readObject(og: OgStorage, name: string): Promise<Uint8Array | null> {
  if (!OBJECT_NAME.test(name)) return null;
  try {
    if (og.s3Bucket) return new Uint8Array(await new Bun.S3Client({ bucket: og.s3Bucket }).file(name).arrayBuffer());
    return new Uint8Array(await Bun.file(join(og.dataDir, "cdn", name)).arrayBuffer());
  } catch {
    return null;
  }
}

/**
 * The object name of an image this link uploaded under `folder`, or null. The URL fields may hold any
 * URL (PATCH og_image), even another link's upload under CDN_URL, so only names made for this link count.
 */
export function ownUpload(og: OgStorage, folder: string, linkId: string, url: string | null): string | null {
  const prefix = `${og.cdnUrl}/${folder}/${linkId}-`;
  return url?.startsWith(prefix) ? url.slice(og.cdnUrl.length + 1) : null;
}

export async function removeObject(og: OgStorage, name: string) {
  if (!OBJECT_NAME.test(name)) return;
  try {
    if (og.s3Bucket) await new Bun.S3Client({ bucket: og.s3Bucket }).delete(name);
    else unlinkSync(join(og.dataDir, "cdn", name));
  } catch {}
}
