// What other features may read of accounts: one account by id, 404 when there is none (the users
// feature's admin routes check the account before they invite into it).
import { notFound } from "../errors";
import type { Postgres } from "../storage/postgres/client";
import type { AccountRecord } from "./principal";
import { findAccount } from "./repository";

export async function getAccountOrThrow(pg: Postgres, id: string) {
  const account = await findAccount(pg.db, id);
  if (!account) throw notFound("Account");
  return account;
}

/** One account by id as a request's principal has it, or undefined (a background job acting for it). */
export const findAccountRecord = async (pg: Postgres, id: string): Promise<AccountRecord | undefined> => {
  const row = await findAccount(pg.db, id);
  return (
    row && {
      id: row.id,
      name: row.name,
      tier: row.tier as AccountRecord["tier"],
      limitOverrides: row.limitOverrides ?? {},
      createdAt: row.createdAt,
    }
  );
};
