// The redirect's form of a link's rules, variants and click limit: sets for the conditions, a stable
// cookie key per variant, and which request facts the rules need (so a plain link needs none).
import type { LinkRow } from "./repository";

export interface CompiledRule {
  /** 1-based position in the link's rules, as click records and reports name it. */
  number: number;
  url: string;
  country?: ReadonlySet<string>;
  device?: ReadonlySet<string>;
  os?: ReadonlySet<string>;
  language?: ReadonlySet<string>;
  query?: { name: string; value: string };
}

export interface CompiledVariant {
  url: string;
  weight: number;
  /** Cookie value: a hash of the URL, so a visitor keeps a variant across reorderings and weight changes. */
  key: string;
  /** The Set-Cookie header that keeps it, made by the redirect on first use. */
  setCookie?: string;
}

export interface LinkTargeting {
  rules: CompiledRule[];
  variants: CompiledVariant[] | null;
  maxClicks: number | null;
  maxClicksUrl: string | null;
  needsCountry: boolean;
  /** Device or OS rules, or a limit (which counts human clicks only). */
  needsAgent: boolean;
}

const setOf = (xs?: string[]) => (xs && xs.length ? new Set(xs) : undefined);

export const variantKey = (url: string) => Bun.hash(url).toString(36);

/** null for a link without rules, variants or limit: the redirect's plain path. */
export function compileTargeting(row: Pick<LinkRow, "rules" | "variants" | "maxClicks" | "maxClicksUrl">): LinkTargeting | null {
  const rules = (row.rules ?? []).map(
    (r, i): CompiledRule => ({
      number: i + 1,
      url: r.url,
      country: setOf(r.if.country),
      device: setOf(r.if.device),
      os: setOf(r.if.os),
      language: setOf(r.if.language),
      query: r.if.query,
    }),
  );
  const variants = row.variants?.length ? row.variants.map((v) => ({ url: v.url, weight: v.weight, key: variantKey(v.url) })) : null;
  if (rules.length === 0 && !variants && row.maxClicks === null) return null;
  return {
    rules,
    variants,
    maxClicks: row.maxClicks,
    maxClicksUrl: row.maxClicksUrl,
    needsCountry: rules.some((r) => r.country),
    needsAgent: row.maxClicks !== null || rules.some((r) => r.device || r.os),
  };
}
