// Kutt's `GET /api/v2/links` answer (JSON: `{ data: [...] }`, or the array alone, pages concatenated):
// address (the code), target, description, visit_count (a total), created_at, domain (null: the
// instance's own). A JSON file is read whole, so it is held to a smaller size than a CSV (KUTT_MAX_BYTES).
import { count, linkRecord, originKey, problem, type ImportRecord } from "./record";

export const KUTT_MAX_BYTES = 64 * 1024 * 1024;
export const KUTT_SHARED_DOMAINS = new Set(["kutt.it"]);

const str = (v: unknown) => (typeof v === "string" ? v.trim() : typeof v === "number" ? String(v) : "");

/** The link objects of a Kutt answer; a string says why the document is not one. */
export function kuttItems(doc: unknown): unknown[] | string {
  const items = Array.isArray(doc) ? doc : (doc as { data?: unknown })?.data;
  if (!Array.isArray(items)) return "is not Kutt's links answer (an array, or an object with a data array)";
  return items;
}

export function readKuttLink(item: unknown): ImportRecord {
  if (typeof item !== "object" || item === null) return problem("row", "is not an object");
  const o = item as Record<string, unknown>;
  const url = str(o.target);
  if (!url) return problem("target", "is empty");
  const code = str(o.address);
  if (!code) return problem("address", "is empty");
  const visits = count(str(o.visit_count), "visit_count");
  if (typeof visits !== "number") return visits;
  const named = str(o.domain).toLowerCase();
  const domain = named && !KUTT_SHARED_DOMAINS.has(named) ? named : null;
  return linkRecord({
    originKey: originKey(domain, code),
    domain,
    code,
    input: { url, description: str(o.description) },
    importedClicks: visits,
  });
}
