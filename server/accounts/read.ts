// What other features may read of accounts: one account by id, 404 when there is none (the users
// feature's admin routes check the account before they invite into it).
import { notFound } from "../errors";
import type { Postgres } from "../storage/postgres/client";
import { findAccount } from "./repository";

export async function getAccountOrThrow(pg: Postgres, id: string) {
  const account = await findAccount(pg.db, id);
  if (!account) throw notFound("Account");
  return account;
}
