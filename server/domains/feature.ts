// The custom domains feature: register, verify through DNS, delete.
import type { Config } from "../config";
import type { Feature } from "../feature";
import type { Auth } from "../http/auth";
import type { Postgres } from "../storage/postgres/client";
import type { DomainHostCache } from "./host-cache";
import { domainsRoutes } from "./routes";

export interface DomainsFeatureDeps {
  config: Pick<Config, "baseUrl">;
  pg: Postgres;
  domainCache: DomainHostCache;
  /** TXT lookups for domain verification (injectable so tests can answer them). */
  resolveTxt: (name: string) => Promise<string[][]>;
  auth: Auth;
}

export const domainsFeature: Feature<DomainsFeatureDeps> = { name: "domains", create: (deps) => ({ routes: domainsRoutes(deps) }) };
