// First start in embedded mode: while nobody has a user, a one-time setup link makes its opener the
// owner of the default account. A new link is made at every start until one is used (the old ones stop working).
import type { Postgres } from "../storage/postgres/client";
import { firstAccountWithoutUsers } from "./repository";
import { createInvitation } from "./invitations";

export async function bootstrapSetupLink(pg: Postgres, baseUrl: string): Promise<string | null> {
  if (pg.kind !== "pglite") return null;
  const account = await firstAccountWithoutUsers(pg.db);
  if (!account) return null;
  const { url } = await createInvitation(pg, baseUrl, { accountId: account.id, email: null, role: "owner", invitedBy: null });
  return url;
}
