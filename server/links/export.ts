// GET /links/export: every live link of the account as CSV (RFC 4180), in the columns POST /imports reads
// back (source `svc`), streamed page by page so the size of the account does not matter.
import type { DbOrTx } from "../storage/postgres/client";
import { domainNamesByIds } from "../domains/read";
import { shortUrl } from "./urls";
import * as repo from "./repository";

/** The columns of the export, in order; the importer recognises the file by them. */
export const LINKS_EXPORT_COLUMNS = [
  "short_url",
  "domain",
  "short_code",
  "original_url",
  "title",
  "description",
  "tags",
  "created_at",
  "imported_clicks",
] as const;

const PAGE = 1000;

/**
 * One CSV cell: quoted when it holds a comma, quote, CR or LF (quotes doubled); a cell a spreadsheet would
 * run as a formula (= + - @ tab CR first) gets a leading apostrophe, which the importer keeps as text.
 */
export function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export function linksExportStream(db: DbOrTx, accountId: string, baseUrl: string): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let after: string | null = null;
  let started = false;
  return new ReadableStream({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(encoder.encode(`${LINKS_EXPORT_COLUMNS.join(",")}\r\n`));
        return;
      }
      const rows = await repo.liveLinksAfter(db, accountId, after, PAGE);
      if (!rows.length) {
        controller.close();
        return;
      }
      after = rows[rows.length - 1].id;
      const names = await domainNamesByIds(db, [...new Set(rows.flatMap((r) => (r.domainId ? [r.domainId] : [])))]);
      let text = "";
      for (const r of rows) {
        const domain = r.domainId ? (names.get(r.domainId) ?? "") : "";
        const cells = [
          shortUrl(baseUrl, r.shortCode, domain || null),
          domain,
          r.shortCode,
          r.originalUrl,
          r.title ?? "",
          r.description ?? "",
          r.tags.join("|"),
          r.createdAt.toISOString(),
          String(r.importedClicks),
        ];
        text += `${cells.map(csvCell).join(",")}\r\n`;
      }
      controller.enqueue(encoder.encode(text));
    },
  });
}
