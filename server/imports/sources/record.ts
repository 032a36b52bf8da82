// What a source's row becomes: a link to create, a click of its history, or a problem with the row.
export interface LinkRecord {
  kind: "link";
  /** The short link in the source (domain and code), lower-case domain: a re-run finds it again. */
  originKey: string;
  /** The source's short domain, null for the product's shared one (bit.ly, dub.sh…) or when unknown. */
  domain: string | null;
  /** The source's short code, kept where it is free. */
  code: string | null;
  input: { url: string; title?: string; description?: string; tags?: string[] };
  /** The source's click total (totals-only sources), 0 when it has none. */
  importedClicks: number;
}
export interface ClickRecord {
  kind: "click";
  /** The origin key of the link clicked (as its LinkRecord had it). */
  originKey: string;
  /** The click's own key in the source (a re-import replaces it). */
  clickKey: string;
  timestamp: Date;
  referrer: string;
  countryCode: string;
  deviceType: string;
  browser: string;
  os: string;
  isBot: boolean;
}
export interface RowProblem {
  kind: "problem";
  field: string;
  message: string;
}
export type ImportRecord = LinkRecord | ClickRecord | RowProblem;

/** A file format: which headers name it, and what one of its rows (cells by normalised header) means. */
export interface SourceFormat {
  /** The source's name in the API (`source`). */
  source: SourceName;
  /** Whether the normalised headers are this format's. */
  matches(headers: readonly string[]): boolean;
  read(cells: Readonly<Record<string, string>>): ImportRecord;
}

export const SOURCE_NAMES = ["bitly", "dub", "shlink", "yourls", "kutt", "svc", "generic", "plausible"] as const;
export type SourceName = (typeof SOURCE_NAMES)[number];

/** Headers compare without case, spaces, underscores or hyphens: "Destination URL" = "destination_url". */
export const normaliseHeader = (h: string) => h.toLowerCase().replace(/[\s_-]+/g, "");

export const problem = (field: string, message: string): RowProblem => ({ kind: "problem", field, message });

/** The first non-empty cell among the normalised header names. */
export const cell = (cells: Readonly<Record<string, string>>, ...names: string[]) => {
  for (const n of names) {
    const v = cells[n]?.trim();
    if (v) return v;
  }
  return "";
};

/** A short link ("https://bit.ly/abc", "bit.ly/abc") as its domain and code; null when it is not one. */
export function splitShortLink(value: string): { domain: string; code: string } | null {
  const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `https://${value}`;
  try {
    const u = new URL(text);
    const code = decodeURIComponent(u.pathname.replace(/^\/+|\/+$/g, ""));
    if (!code || !u.hostname.includes(".")) return null;
    return { domain: u.hostname.toLowerCase(), code };
  } catch {
    return null;
  }
}

export const originKey = (domain: string | null, code: string) => `${domain ?? ""}/${code}`;

/** A count cell: "1,234" and "" (0) are read; anything else is a problem. */
export function count(value: string, field: string): number | RowProblem {
  const v = value.replace(/[,\s_]/g, "");
  if (v === "") return 0;
  if (!/^\d{1,15}$/.test(v)) return problem(field, "must be a whole number of clicks");
  return Number(v);
}

/** Tags from one cell, split on the source's separator. */
export const tagList = (value: string, separator: RegExp) =>
  value
    .split(separator)
    .map((t) => t.trim())
    .filter(Boolean);

/**
 * A cell a spreadsheet would run as a formula: = (or tab, CR) first, or + - @ before a function call
 * ("@SUM(", "-cmd(", not "-50% off" or "@home"). A row carrying one is refused rather than stored for
 * a later export to re-arm. A cell our export neutralised ("'=…") is text and is kept as it is.
 */
export const looksLikeFormula = (v: string) => /^[=\t\r]/.test(v) || /^[+\-@]\s*[A-Za-z_][\w.]*\s*\(/.test(v);

/** The link record, or the problem of its first formula-like text cell. */
export function linkRecord(r: Omit<LinkRecord, "kind">): LinkRecord | RowProblem {
  const texts: [string, string | undefined][] = [
    ["title", r.input.title],
    ["description", r.input.description],
    ...(r.input.tags ?? []).map((t): [string, string] => ["tags", t]),
  ];
  for (const [field, v] of texts)
    if (v && looksLikeFormula(v)) return problem(field, "starts like a spreadsheet formula (=, +, -, @); edit the cell and import again");
  const input = Object.fromEntries(Object.entries(r.input).filter(([, v]) => v !== undefined && v !== "")) as LinkRecord["input"];
  if (input.tags?.length === 0) delete input.tags;
  return { kind: "link", ...r, input };
}
