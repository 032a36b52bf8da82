// What the accounts feature shares with the others, made once per runtime: the cached API key resolver
// (the auth plugin reads it; revoking a key or changing an account invalidates it across instances).
import type { SharedFrom } from "../feature";
import { createKeyResolver, type CachedKeyResolver } from "./api-keys";

export interface AccountShared {
  keys: CachedKeyResolver;
}

export async function openAccountShared({ pg, sync }: SharedFrom): Promise<AccountShared> {
  return { keys: await createKeyResolver(pg, sync) };
}
