// The pages of /unsubscribe/{token}: a button (a GET only shows it, so that a mail scanner that follows
// links unsubscribes no one), then the confirmation. The address shown is escaped.
import { escapeHtml } from "./mails";

export const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-robots-tag": "noindex, nofollow",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
};

const doc = (body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
  `<meta name="robots" content="noindex, nofollow"><title>Email reports</title></head>` +
  `<body style="font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem">${body}</body></html>`;

export const confirmPage = (email: string, token: string) =>
  doc(
    `<h1>Stop the reports?</h1><p>${escapeHtml(email)} will get no more weekly or monthly reports of this account.</p>` +
      `<form method="post" action="/unsubscribe/${escapeHtml(token)}"><button type="submit" style="font:inherit;padding:.5rem 1rem">Unsubscribe</button></form>`,
  );
export const donePage = (email: string) =>
  doc(`<h1>Unsubscribed</h1><p>${escapeHtml(email)} will get no more reports of this account.</p>`);
export const unknownPage = () =>
  doc(`<h1>Nothing to unsubscribe</h1><p>This link is not valid, or the address was already unsubscribed.</p>`);
