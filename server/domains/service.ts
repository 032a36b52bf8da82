// Custom domains: register, list, verify through a DNS TXT record, delete. No Elysia here.
import { AppError, notFound, validationError } from "../errors";
import { emitEvent } from "../webhooks/outbox";
import { isUniqueViolation } from "../storage/postgres/errors";
import type { Postgres } from "../storage/postgres/client";
import * as repo from "./repository";
import { countLiveLinksOnDomain } from "../links/read";
import type { DomainHostCache } from "./host-cache";
import { isHostname, verificationRecord, type DomainJson } from "./model";

type DomainRow = repo.DomainRow;
export interface DomainsDeps {
  pg: Postgres;
  domainCache: DomainHostCache;
  resolveTxt: (name: string) => Promise<string[][]>;
  baseUrl: string;
}

const toDomainJson = (d: DomainRow): DomainJson => ({
  id: d.id,
  name: d.name,
  verified: d.verifiedAt !== null,
  verified_at: d.verifiedAt?.toISOString() ?? null,
  verification: { type: "TXT" as const, name: verificationRecord(d.name), value: d.verificationToken },
  created_at: d.createdAt.toISOString(),
});

async function getDomainOrThrow(pg: Postgres, accountId: string, id: string) {
  const row = await repo.findAccountDomain(pg.db, accountId, id);
  if (!row) throw notFound("Domain");
  return row;
}

/** A domain name as people paste it: `https://Go.Example.com/` or `go.example.com.` → `go.example.com`. */
export function normalizeDomainInput(raw: string): string {
  let name = raw.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(name)) {
    try {
      name = new URL(name).hostname;
    } catch {
      return name.toLowerCase();
    }
  }
  return name.replace(/\/+$/, "").toLowerCase().replace(/\.$/, "");
}

export async function createDomain(deps: DomainsDeps, accountId: string, rawName: string) {
  const name = normalizeDomainInput(rawName);
  if (!isHostname(name)) throw validationError("body.name", "must be a domain name such as links.example.com");
  if (name === new URL(deps.baseUrl).hostname) throw validationError("body.name", "is the service's own host");
  // Another account may have added the name without verifying it: that blocks nobody. A verified
  // name belongs to the account that proved it through DNS.
  if ((await repo.findVerifiedDomainId(deps.pg.db, name)) !== null)
    throw new AppError("CONFLICT", `${name} is already verified by an account`, { field: "body.name" });
  try {
    return toDomainJson(await repo.insertDomain(deps.pg.db, accountId, name, `svc-verify-${crypto.randomUUID()}`));
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError("CONFLICT", `${name} is already one of this account's domains`, { field: "body.name" });
    throw err;
  }
}

export async function listDomains(pg: Postgres, accountId: string) {
  return (await repo.listAccountDomains(pg.db, accountId)).map(toDomainJson);
}

export const getDomain = async (pg: Postgres, accountId: string, id: string) => toDomainJson(await getDomainOrThrow(pg, accountId, id));

export async function verifyDomain(deps: DomainsDeps, accountId: string, id: string) {
  const domain = await getDomainOrThrow(deps.pg, accountId, id);
  if (domain.verifiedAt) return { ...toDomainJson(domain), message: "The domain is verified" };
  let records: string[] = [];
  try {
    records = (await deps.resolveTxt(verificationRecord(domain.name))).map((parts) => parts.join(""));
  } catch {
    // NXDOMAIN and friends: simply not verified yet.
  }
  if (!records.includes(domain.verificationToken)) {
    return {
      ...toDomainJson(domain),
      message: `No TXT record ${verificationRecord(domain.name)} with the value ${domain.verificationToken} was found yet`,
    };
  }
  let verified: typeof domain;
  try {
    verified = await deps.pg.db.transaction(async (tx) => {
      const row = await repo.markDomainVerified(tx, id);
      await emitEvent(tx, accountId, "domain.verified", { id: row.id, name: row.name, verified_at: row.verifiedAt!.toISOString() });
      return row;
    });
  } catch (err) {
    // Another account verified the same name first (domains_verified_name_idx).
    if (isUniqueViolation(err)) throw new AppError("CONFLICT", `${domain.name} is already verified by another account`);
    throw err;
  }
  await deps.domainCache.invalidate(verified.name);
  return { ...toDomainJson(verified), message: "The domain is verified" };
}

export async function deleteDomain(deps: DomainsDeps, accountId: string, id: string) {
  const domain = await getDomainOrThrow(deps.pg, accountId, id);
  const n = await countLiveLinksOnDomain(deps.pg.db, id);
  if (n > 0) throw new AppError("CONFLICT", `${n} link(s) still use ${domain.name}; delete or move them first`, { links: n });
  await repo.deleteDomainRow(deps.pg.db, id);
  await deps.domainCache.invalidate(domain.name);
  return { message: `Domain ${domain.name} deleted` };
}
