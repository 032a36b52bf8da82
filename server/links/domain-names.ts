// The names of the custom domains some links are on (the domains feature's answer), for the short URLs
// of the webhook payloads the sweepers emit.
import type { DbOrTx } from "../storage/postgres/client";
import { domainNamesByIds } from "../domains/read";

export async function domainNamesOf(db: DbOrTx, rows: readonly { domain_id: string | null }[]): Promise<Map<string, string>> {
  return domainNamesByIds(db, [...new Set(rows.flatMap((r) => (r.domain_id ? [r.domain_id] : [])))]);
}
