// The form's drafts of targeting rules and A/B variants (text as typed, one stable key each so that
// reordering keeps focus and input state), how they become the API's `rules` and `variants`, and which of
// the API's field errors belong to which draft field.
import type { Link, Rule, Variant } from "../../types";

export const DEVICES = ["mobile", "tablet", "desktop"] as const satisfies readonly NonNullable<Rule["if"]["device"]>[number][];
export const OSES = ["ios", "android", "windows", "macos", "linux", "chromeos"] as const satisfies readonly NonNullable<
  Rule["if"]["os"]
>[number][];
export type Device = (typeof DEVICES)[number];
export type Os = (typeof OSES)[number];
export const OS_NAMES: Record<Os, string> = {
  ios: "iOS",
  android: "Android",
  windows: "Windows",
  macos: "macOS",
  linux: "Linux",
  chromeos: "ChromeOS",
};

export interface RuleDraft {
  key: number;
  country: string;
  device: Device[];
  os: Os[];
  language: string;
  queryName: string;
  queryValue: string;
  url: string;
}

export interface VariantDraft {
  key: number;
  url: string;
  weight: string;
}

let lastKey = 0;
export const newKey = () => ++lastKey;

export const emptyRule = (): RuleDraft => ({
  key: newKey(),
  country: "",
  device: [],
  os: [],
  language: "",
  queryName: "",
  queryValue: "",
  url: "",
});

const list = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);

export const ruleDraft = (r: Rule): RuleDraft => ({
  key: newKey(),
  country: (r.if.country ?? []).join(", "),
  device: (r.if.device ?? []) as Device[],
  os: (r.if.os ?? []) as Os[],
  language: (r.if.language ?? []).join(", "),
  queryName: r.if.query?.name ?? "",
  queryValue: r.if.query?.value ?? "",
  url: r.url,
});

/** A draft as the API takes it; conditions left empty are left out (a rule with none is the API's to refuse). */
export function toRule(d: RuleDraft): Rule {
  const cond: Rule["if"] = {};
  if (list(d.country).length) cond.country = list(d.country);
  if (d.device.length) cond.device = d.device;
  if (d.os.length) cond.os = d.os;
  if (list(d.language).length) cond.language = list(d.language);
  if (d.queryName.trim()) cond.query = { name: d.queryName.trim(), value: d.queryValue };
  return { if: cond, url: d.url.trim() };
}

export const variantDraft = (v: Variant): VariantDraft => ({ key: newKey(), url: v.url, weight: String(v.weight) });

/** Weights as typed: a blank or non-integer weight is sent as typed (NaN → null) for the API to name. */
export const toVariant = (d: VariantDraft): Variant => ({
  url: d.url.trim(),
  weight: d.weight.trim() === "" ? Number.NaN : Number(d.weight),
});

export const weightSum = (drafts: VariantDraft[]) => drafts.reduce((sum, d) => sum + (Number(d.weight) || 0), 0);

/** Even weights summing to 100 (the first ones take the remainder). */
export function splitEvenly(drafts: VariantDraft[]): VariantDraft[] {
  const base = Math.floor(100 / drafts.length);
  const extra = 100 - base * drafts.length;
  return drafts.map((d, i) => ({ ...d, weight: String(base + (i < extra ? 1 : 0)) }));
}

/** The messages of `field` and of the fields inside it (`rules.0.if.country` holds `rules.0.if.country.1`). */
export function errorsAt(fields: Record<string, string>, field: string): string | undefined {
  const found = Object.entries(fields)
    .filter(([f]) => f === field || f.startsWith(`${field}.`))
    .map(([, m]) => m);
  return found.length ? found.join("; ") : undefined;
}

/** The targeting part of a link, for its page: "Country DE, AT · Language de". */
export function describeConditions(c: Rule["if"]): string {
  const parts: string[] = [];
  if (c.country?.length) parts.push(`Country ${c.country.join(", ")}`);
  if (c.device?.length) parts.push(`Device ${c.device.join(", ")}`);
  if (c.os?.length) parts.push(`OS ${c.os.map((o) => OS_NAMES[o as Os] ?? o).join(", ")}`);
  if (c.language?.length) parts.push(`Language ${c.language.join(", ")}`);
  if (c.query) parts.push(`Query ${c.query.name}=${c.query.value}`);
  return parts.join(" · ");
}

export const hasTargeting = (l: Link) => l.rules.length > 0 || l.variants.length > 0 || l.max_clicks !== null || l.expired_url !== null;
