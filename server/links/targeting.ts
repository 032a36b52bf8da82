// A link's targeting rules, A/B variants and fallback URLs: validated and normalized as the API stores
// them (countries upper case; languages, devices and OS families lower case; no repeats; URLs as for the
// destination). Every value is accepted in any case: users write "iOS" and "DE".
import countries from "i18n-iso-countries";
import languageTags from "language-tags";
import { validationError } from "../errors";
import type { LinkRuleJson, LinkVariantJson } from "../storage/postgres/schema";
import { DEVICE_TYPES, OS_FAMILIES, type CreateLinkInput } from "./model";
import { validateDestination } from "./urls";

type RuleInput = NonNullable<CreateLinkInput["rules"]>[number];
type VariantInput = NonNullable<CreateLinkInput["variants"]>[number];

const unique = <T>(xs: T[]) => [...new Set(xs)];

function countryCodes(values: string[], field: string): string[] {
  return unique(
    values.map((raw, j) => {
      const code = raw.trim().toUpperCase();
      if (!/^[A-Z]{2}$/.test(code) || !countries.isValid(code))
        throw validationError(`${field}.${j}`, `"${raw}" is not an ISO 3166-1 alpha-2 country code`);
      return code;
    }),
  );
}

function languageCodes(values: string[], field: string): string[] {
  return unique(
    values.map((raw, j) => {
      const code = raw.trim().toLowerCase();
      // A primary language subtag of the IANA registry (BCP 47): 2 or 3 letters, not a whole tag.
      if (!/^[a-z]{2,3}$/.test(code) || !languageTags.language(code))
        throw validationError(`${field}.${j}`, `"${raw}" is not a BCP 47 primary language subtag (such as en, de or pt)`);
      return code;
    }),
  );
}

function choices(values: string[], allowed: readonly string[], field: string): string[] {
  return unique(
    values.map((raw, j) => {
      const value = raw.trim().toLowerCase();
      if (!allowed.includes(value)) throw validationError(`${field}.${j}`, `"${raw}" is not one of ${allowed.join(", ")}`);
      return value;
    }),
  );
}

/** null for none (null or []), so that a link without rules keeps the plain redirect. */
export function normalizeRules(rules: RuleInput[] | null | undefined, at: string): LinkRuleJson[] | null {
  if (!rules || rules.length === 0) return null;
  return rules.map((rule, i) => {
    const field = `${at}rules.${i}`;
    const c = rule.if;
    const out: LinkRuleJson["if"] = {};
    if (c.country) out.country = countryCodes(c.country, `${field}.if.country`);
    if (c.device) out.device = choices(c.device, DEVICE_TYPES, `${field}.if.device`);
    if (c.os) out.os = choices(c.os, OS_FAMILIES, `${field}.if.os`);
    if (c.language) out.language = languageCodes(c.language, `${field}.if.language`);
    if (c.query) out.query = { name: c.query.name, value: c.query.value };
    if (Object.keys(out).length === 0) throw validationError(`${field}.if`, "must hold at least one condition");
    return { if: out, url: validateDestination(rule.url, `${field}.url`) };
  });
}

/** null for none (null or []); otherwise 2 or more distinct URLs whose weights sum to 100. */
export function normalizeVariants(variants: VariantInput[] | null | undefined, at: string): LinkVariantJson[] | null {
  if (!variants || variants.length === 0) return null;
  if (variants.length < 2) throw validationError(`${at}variants`, "needs at least 2 variants (or none)");
  const seen = new Map<string, number>();
  const out = variants.map((v, i) => {
    const url = validateDestination(v.url, `${at}variants.${i}.url`);
    const earlier = seen.get(url);
    if (earlier !== undefined) throw validationError(`${at}variants.${i}.url`, `is the same URL as variants.${earlier}`);
    seen.set(url, i);
    return { url, weight: v.weight };
  });
  const sum = out.reduce((a, v) => a + v.weight, 0);
  if (sum !== 100) throw validationError(`${at}variants`, `weights must sum to 100 (they sum to ${sum})`);
  return out;
}

/** A fallback URL (max_clicks_url, expired_url): null clears it, "" too. */
export const normalizeFallbackUrl = (value: string | null | undefined, field: string) => (value ? validateDestination(value, field) : null);
