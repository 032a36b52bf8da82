// The trash: deleted links that POST /links/{id}/restore can still bring back, with the time each one's
// window closes.
import { Paginated } from "../http/envelope";
import { listDeletedLinkRows } from "./repository";
import { RECOVERY_WINDOW_MS, serializeLinks, type LinksDeps } from "./service";

export async function listDeletedLinks(deps: LinksDeps, accountId: string, q: { page?: number; per_page?: number }) {
  const page = q.page ?? 1;
  const perPage = q.per_page ?? 20;
  const { rows, total } = await listDeletedLinkRows(deps.pg.db, accountId, new Date(Date.now() - RECOVERY_WINDOW_MS), page, perPage);
  const json = await serializeLinks(deps, deps.pg.db, rows);
  const items = json.map((link, i) => ({
    ...link,
    deleted_at: rows[i].deletedAt!.toISOString(),
    restorable_until: new Date(rows[i].deletedAt!.getTime() + RECOVERY_WINDOW_MS).toISOString(),
  }));
  return new Paginated(items, { page, per_page: perPage, total });
}
