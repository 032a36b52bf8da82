// PUT/DELETE /links/{id}/og-image: raw image bytes → 1200x630 WebP (sharp), stored as uploads are
// (uploads.ts).
import { emitEvent } from "../events/bus";
import type { AccountRecord } from "../http/auth";
import { getLinkOrThrow, serializeLinks, type LinksDeps } from "./service";
import * as repo from "./repository";
import { checkUploadTier, convertImage, ownUpload, readUploadedImage, removeObject, storeObject, type OgStorage } from "./uploads";

export type { OgStorage } from "./uploads";

export async function uploadOgImage(deps: LinksDeps & { og: OgStorage }, account: AccountRecord, id: string, request: Request) {
  checkUploadTier(account, "OG image upload");
  const link = await getLinkOrThrow(deps.pg.db, account.id, id);
  const bytes = await readUploadedImage(request);
  const webp = await convertImage(bytes, (image) => image.resize(1200, 630, { fit: "cover" }).webp({ quality: 82 }));
  const name = `og/${link.id}-${crypto.randomUUID().slice(0, 8)}.webp`;
  await storeObject(deps.og, name, webp, "image/webp");
  const url = `${deps.og.cdnUrl}/${name}`;
  await setLinkImage(deps, account.id, link.id, { ogImage: url });
  const old = ownUpload(deps.og, "og", link.id, link.ogImage);
  if (old) await removeObject(deps.og, old);
  return { og_image: url, message: "OG image uploaded and resized to 1200x630 WebP" };
}

export async function deleteOgImage(deps: LinksDeps & { og: OgStorage }, account: AccountRecord, id: string) {
  const link = await getLinkOrThrow(deps.pg.db, account.id, id);
  const old = ownUpload(deps.og, "og", link.id, link.ogImage);
  if (old) await removeObject(deps.og, old);
  await setLinkImage(deps, account.id, link.id, { ogImage: null });
  return { og_image: null, message: "OG image removed" };
}

/** Sets an image field of the link, emits link.updated and drops the cached link. */
export async function setLinkImage(deps: LinksDeps, accountId: string, id: string, patch: Pick<repo.NewLink, "ogImage" | "qrLogo">) {
  const row = await deps.pg.db.transaction(async (tx) => {
    const row = await repo.updateLinkRow(tx, id, patch);
    await emitEvent(tx, accountId, "link.updated", (await serializeLinks(deps, tx, [row]))[0]);
    return row;
  });
  await deps.linkCache.invalidate(row.domainId, row.shortCode);
}
