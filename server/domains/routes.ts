// Custom domains (DESIGN.md: GET/POST /domains, GET/DELETE /domains/{id}, POST /domains/{id}/verify).
import { Elysia, t } from "elysia";
import { API_PREFIX, type FeatureDeps } from "../app";
import { Envelope } from "../http/envelope";
import { MessageResult } from "../openapi/envelope";
import { operation } from "../openapi/operation";
import { CreateDomainBody, Domain, DomainIdParams, DomainVerification } from "./model";
import * as domains from "./service";

export function domainsRoutes(deps: FeatureDeps) {
  const ctx = { pg: deps.pg, domainCache: deps.domainCache, resolveTxt: deps.resolveTxt, baseUrl: deps.config.baseUrl };
  return new Elysia({ prefix: API_PREFIX })
    .use(deps.auth)
    .get("/domains", ({ account }) => domains.listDomains(deps.pg, account.id), {
      scope: "domains:read",
      detail: operation({
        id: "listDomains",
        tag: "Domains",
        summary: "List custom domains",
        responses: { 200: { description: "The account's domains, oldest first", data: t.Array(Domain) } },
      }),
    })
    .post("/domains", async ({ account, body }) => new Envelope(await domains.createDomain(ctx, account.id, body.name), 201), {
      scope: "domains:write",
      body: CreateDomainBody,
      detail: operation({
        id: "createDomain",
        tag: "Domains",
        summary: "Add a custom domain",
        description: "Then publish the TXT record in `verification` and call verify. A name another account verified is 409.",
        responses: { 201: { description: "The domain, not verified yet", data: Domain } },
        errors: ["CONFLICT"],
      }),
    })
    .get("/domains/:id", ({ account, params }) => domains.getDomain(deps.pg, account.id, params.id), {
      scope: "domains:read",
      params: DomainIdParams,
      detail: operation({
        id: "getDomain",
        tag: "Domains",
        summary: "Get a custom domain",
        responses: { 200: { description: "The domain", data: Domain } },
        errors: ["NOT_FOUND"],
      }),
    })
    .delete("/domains/:id", ({ account, params }) => domains.deleteDomain(ctx, account.id, params.id), {
      scope: "domains:write",
      params: DomainIdParams,
      detail: operation({
        id: "deleteDomain",
        tag: "Domains",
        summary: "Delete a custom domain",
        description: "409 while live links use it.",
        responses: { 200: { description: "Deleted", data: MessageResult } },
        errors: ["NOT_FOUND", "CONFLICT"],
      }),
    })
    .post("/domains/:id/verify", ({ account, params }) => domains.verifyDomain(ctx, account.id, params.id), {
      scope: "domains:write",
      params: DomainIdParams,
      detail: operation({
        id: "verifyDomain",
        tag: "Domains",
        summary: "Verify a custom domain",
        description:
          "Looks up the TXT record now. Not finding it is not an error: `verified` stays false and `message` says what is missing.",
        responses: { 200: { description: "The domain after the check", data: DomainVerification } },
        errors: ["NOT_FOUND", "CONFLICT"],
      }),
    });
}
