// Custom domains (DESIGN.md "Custom domains").
import { t } from "elysia";

export const CreateDomainBody = t.Object({ name: t.String({ minLength: 3, maxLength: 253 }) }, { additionalProperties: false });
export const DomainIdParams = t.Object({ id: t.String({ format: "uuid" }) });

const HOSTNAME = /^(?=.{3,253}$)(?!-)([a-z0-9-]{1,63}(?<!-)\.)+[a-z]{2,63}$/;
export const isHostname = (s: string) => HOSTNAME.test(s);
export const verificationRecord = (name: string) => `_svc-verify.${name}`;
