// Custom domains (DESIGN.md "Custom domains").
import { t, type Static } from "elysia";

export const CreateDomainBody = t.Object({ name: t.String({ minLength: 3, maxLength: 253 }) }, { additionalProperties: false });
export const DomainIdParams = t.Object({ id: t.String({ format: "uuid" }) });

const HOSTNAME = /^(?=.{3,253}$)(?!-)([a-z0-9-]{1,63}(?<!-)\.)+[a-z]{2,63}$/;
export const isHostname = (s: string) => HOSTNAME.test(s);
export const verificationRecord = (name: string) => `_svc-verify.${name}`;

// Responses; toDomainJson (service.ts) returns exactly a Domain, and the tests check every answer.
const domainFields = {
  id: t.String({ format: "uuid" }),
  name: t.String(),
  verified: t.Boolean(),
  verified_at: t.Union([t.String({ format: "date-time" }), t.Null()]),
  verification: t.Object(
    {
      type: t.Literal("TXT"),
      name: t.String({ description: "_svc-verify.<domain>" }),
      value: t.String({ description: "The value the TXT record must hold" }),
    },
    { additionalProperties: false },
  ),
  created_at: t.String({ format: "date-time" }),
};
export const Domain = t.Object(domainFields, { $id: "Domain", additionalProperties: false });
export type DomainJson = Static<typeof Domain>;
export const DomainVerification = t.Object(
  { ...domainFields, message: t.String({ description: "Whether the record was found" }) },
  { $id: "DomainVerification", additionalProperties: false },
);
