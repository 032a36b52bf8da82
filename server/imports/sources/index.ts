// The formats the importer reads, and which one a file's header row is.
import { bitly } from "./bitly";
import { dub } from "./dub";
import { generic } from "./generic";
import type { SourceFormat, SourceName } from "./record";
import { shlink } from "./shlink";
import { svcClicks, svcLinks } from "./svc";
import { yourlsLog, yourlsUrl } from "./yourls";

/** Most specific first: the generic format matches almost anything with a url column. */
const CSV_FORMATS: readonly SourceFormat[] = [svcClicks, svcLinks, dub, bitly, shlink, yourlsLog, yourlsUrl, generic];

/** The format of a CSV with these (normalised) headers: the named source's when given, else the first that fits. */
export function csvFormatFor(headers: readonly string[], named?: SourceName): SourceFormat | null {
  const candidates = named ? CSV_FORMATS.filter((f) => f.source === named) : CSV_FORMATS;
  return candidates.find((f) => f.matches(headers)) ?? null;
}

export { KUTT_MAX_BYTES, kuttItems, readKuttLink } from "./kutt";
export { CLICKS_EXPORT_COLUMNS } from "./svc";
export * from "./record";
