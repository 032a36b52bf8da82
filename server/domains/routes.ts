// Custom domains (DESIGN.md: GET/POST /domains, GET/DELETE /domains/{id}, POST /domains/{id}/verify).
import { Elysia } from "elysia";
import { API_PREFIX, type FeatureDeps } from "../app";
import { Envelope } from "../http/envelope";
import { CreateDomainBody, DomainIdParams } from "./model";
import * as domains from "./service";

export function domainsRoutes(deps: FeatureDeps) {
  const ctx = { pg: deps.pg, domainCache: deps.domainCache, resolveTxt: deps.resolveTxt, baseUrl: deps.config.baseUrl };
  // A fresh object per route: Elysia merges macro details into it in place.
  const detail = () => ({ tags: ["Domains"] });
  return new Elysia({ prefix: API_PREFIX })
    .use(deps.auth)
    .get("/domains", ({ account }) => domains.listDomains(deps.pg, account.id), { scope: "domains:read", detail: detail() })
    .post("/domains", async ({ account, body }) => new Envelope(await domains.createDomain(ctx, account.id, body.name), 201), {
      scope: "domains:write",
      body: CreateDomainBody,
      detail: detail(),
    })
    .get("/domains/:id", ({ account, params }) => domains.getDomain(deps.pg, account.id, params.id), {
      scope: "domains:read",
      params: DomainIdParams,
      detail: detail(),
    })
    .delete("/domains/:id", ({ account, params }) => domains.deleteDomain(ctx, account.id, params.id), {
      scope: "domains:write",
      params: DomainIdParams,
      detail: detail(),
    })
    .post("/domains/:id/verify", ({ account, params }) => domains.verifyDomain(ctx, account.id, params.id), {
      scope: "domains:write",
      params: DomainIdParams,
      detail: detail(),
    });
}
