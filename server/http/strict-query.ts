// Query schemas that refuse parameters they do not declare. Elysia strips unknown keys from a plain
// object schema before validation (so `?link_id=…` on a report without that filter silently answered
// account totals); a schema whose additional properties must match `Never` fails on them instead, and
// error-mapping.ts names each one as an unknown parameter.
import { t } from "elysia";
import type { ObjectOptions, TProperties } from "@sinclair/typebox";

export const UNKNOWN_PARAMETER = "is not a parameter of this request";

export const StrictQuery = <T extends TProperties>(properties: T, options: ObjectOptions = {}) =>
  t.Object(properties, { ...options, additionalProperties: t.Never({ description: UNKNOWN_PARAMETER }) });
