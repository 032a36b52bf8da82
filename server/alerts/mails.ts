// The emails: the report and the alert, each as text and as HTML. The HTML is one column of at most
// 560 px that narrows with the screen (a phone's mail client at 390 px shows it without scrolling
// sideways): inline styles only, as mail clients drop style sheets; long names wrap. Every name a
// person or a visitor wrote (link titles, referrers, page URLs) is escaped.
import type { MailMessage } from "../mail/mailer";
import type { Change, ReportFigures, Top } from "./report-data";

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const n = new Intl.NumberFormat("en");
const money = new Intl.NumberFormat("en", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const longDay = (day: string) =>
  new Date(`${day}T00:00:00Z`).toLocaleDateString("en", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });
const lastDay = (end: string) => new Date(Date.parse(end) - 86_400_000).toISOString().slice(0, 10);

export const changeText = (c: Change) => (c.change_percent === null ? "new" : `${c.change_percent > 0 ? "+" : ""}${c.change_percent}%`);

const FONT = "font-family:-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif";
const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
  `<title>${escapeHtml(title)}</title></head><body style="margin:0;padding:0;background:#f4f5f7;${FONT};color:#1f2328">` +
  `<div style="max-width:560px;margin:0 auto;padding:16px;box-sizing:border-box">${body}</div></body></html>`;

interface ReportMail {
  accountName: string;
  figures: ReportFigures;
  unsubscribeUrl: string;
}

export function periodName(f: ReportFigures) {
  return `${longDay(f.period.start)} – ${longDay(lastDay(f.period.end))}`;
}

const FIGURES = [
  ["Clicks", "clicks", n.format],
  ["Visitors", "visitors", n.format],
  ["Conversions", "conversions", n.format],
  ["Revenue", "revenue", money.format],
] as const;

function figureCell(label: string, c: Change, fmt: (v: number) => string) {
  const color = c.change_percent === null || c.change_percent === 0 ? "#57606a" : c.change_percent > 0 ? "#1a7f37" : "#cf222e";
  return (
    `<td style="width:50%;padding:12px;vertical-align:top;background:#fff;border:1px solid #d0d7de;border-radius:6px">` +
    `<div style="font-size:13px;color:#57606a">${label}</div>` +
    `<div style="font-size:24px;font-weight:600;margin:4px 0">${fmt(c.current)}</div>` +
    `<div style="font-size:13px;color:${color}">${changeText(c)} <span style="color:#57606a">vs ${fmt(c.previous)}</span></div></td>`
  );
}

/** The top lists in the order the mail shows them, each row as (name, count), and what an empty one says. */
function topLists(f: ReportFigures): [string, Top[], string][] {
  return [
    ["Top links", f.top_links, "No clicks"],
    ["Top sources", f.top_sources, "No clicks"],
    ["Top countries", f.top_countries, "No clicks"],
    ["Top pages (views)", f.top_pages.map((p) => ({ name: p.url, clicks: p.views })), "No page views"],
  ];
}

function topTable(title: string, rows: Top[], none: string) {
  const body = rows.length
    ? rows
        .map(
          (r) =>
            `<tr><td style="padding:6px 0;border-top:1px solid #eaeef2;word-break:break-word;overflow-wrap:anywhere">${escapeHtml(r.name)}</td>` +
            `<td style="padding:6px 0 6px 12px;border-top:1px solid #eaeef2;text-align:right;white-space:nowrap">${n.format(r.clicks)}</td></tr>`,
        )
        .join("")
    : `<tr><td style="padding:6px 0;color:#57606a">${none}</td></tr>`;
  return (
    `<h2 style="font-size:16px;margin:20px 0 6px">${title}</h2>` +
    `<table role="presentation" style="width:100%;border-collapse:collapse;table-layout:fixed;font-size:14px">` +
    `<colgroup><col><col style="width:80px"></colgroup>${body}</table>`
  );
}

export function reportMail(to: string, m: ReportMail): MailMessage {
  const f = m.figures;
  const which = f.period.frequency === "weekly" ? "Weekly" : "Monthly";
  const subject = `${which} report for ${m.accountName}: ${periodName(f)}`;
  const text = [
    `${which} report for ${m.accountName}`,
    periodName(f),
    "",
    ...FIGURES.map(([label, key, fmt]) => `${label}: ${fmt(f[key].current)} (${changeText(f[key])} vs ${fmt(f[key].previous)})`),
    "",
    ...topLists(f).flatMap(([title, rows, none]) => [
      `${title}:`,
      ...(rows.length ? rows.map((r) => `  ${r.name}: ${n.format(r.clicks)}`) : [`  ${none}`]),
      "",
    ]),
    `Unsubscribe: ${m.unsubscribeUrl}`,
  ].join("\n");
  const cells = FIGURES.map(([label, key, fmt]) => figureCell(label, f[key], fmt));
  const html = page(
    subject,
    `<h1 style="font-size:20px;margin:8px 0 2px;word-break:break-word">${which} report for ${escapeHtml(m.accountName)}</h1>` +
      `<p style="margin:0 0 12px;color:#57606a;font-size:14px">${periodName(f)}, compared with the ${which === "Weekly" ? "week" : "month"} before</p>` +
      `<table role="presentation" style="width:100%;border-collapse:separate;border-spacing:6px;table-layout:fixed">` +
      `<tr>${cells[0]}${cells[1]}</tr><tr>${cells[2]}${cells[3]}</tr></table>` +
      topLists(f)
        .map(([title, rows, none]) => topTable(title, rows, none))
        .join("") +
      `<p style="margin:24px 0 0;font-size:12px;color:#57606a">You get this report because the account's owner subscribed ${escapeHtml(to)}. ` +
      `<a href="${escapeHtml(m.unsubscribeUrl)}" style="color:#0969da">Unsubscribe</a></p>`,
  );
  return {
    to,
    subject,
    text,
    html,
    headers: { "List-Unsubscribe": `<${m.unsubscribeUrl}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
  };
}

export function alertMail(
  to: string,
  a: { title: string; value: number; detail: Record<string, number>; consoleUrl: string },
): MailMessage {
  const lines = Object.entries(a.detail).map(([k, v]) => `${k.replace(/_/g, " ")}: ${n.format(v)}`);
  const text = [`Alert: ${a.title}`, "", `Value: ${n.format(a.value)}`, ...lines, "", `Alerts: ${a.consoleUrl}`].join("\n");
  const html = page(
    a.title,
    `<h1 style="font-size:18px;margin:8px 0;word-break:break-word">${escapeHtml(a.title)}</h1>` +
      `<p style="font-size:28px;font-weight:600;margin:8px 0">${n.format(a.value)}</p>` +
      `<ul style="padding-left:18px;font-size:14px;color:#57606a">${lines.map((l) => `<li>${escapeHtml(l)}</li>`).join("")}</ul>` +
      `<p style="font-size:13px"><a href="${escapeHtml(a.consoleUrl)}" style="color:#0969da">Manage alerts</a> (at most one email per alert every 12 hours)</p>`,
  );
  return { to, subject: `Alert: ${a.title}`, text, html };
}
