// What the domains feature shares with the others, made once per runtime: which verified custom domain
// a request's host names (the redirect and the app read it; verifying or deleting a domain invalidates
// it across instances).
import type { SharedFrom } from "../feature";
import { DomainHostCache } from "./host-cache";

export interface DomainShared {
  domainCache: DomainHostCache;
}

export async function openDomainShared({ pg, sync }: SharedFrom): Promise<DomainShared> {
  const domainCache = new DomainHostCache(pg, sync);
  await domainCache.listen();
  return { domainCache };
}
