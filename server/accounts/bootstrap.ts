// First start in embedded mode: a `default` account (tier scale) and an all-scopes key in DATA_DIR/dev-key.txt.
import { writeFileSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { SCOPES } from "../scopes";
import type { Postgres } from "../storage/postgres/client";
import { countAccounts } from "./repository";
import { createAccount, createKey } from "./service";

export async function bootstrapDevAccount(pg: Postgres, dataDir: string): Promise<string | null> {
  if (pg.kind !== "pglite" || (await countAccounts(pg.db)) > 0) return null;
  const account = await createAccount(pg, { name: "default", tier: "scale" });
  const { key } = await createKey(pg, account.id, { name: "dev", scopes: [...SCOPES] });
  const path = join(dataDir, "dev-key.txt");
  writeFileSync(path, key + "\n", { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
}
