// Email reports and alerts (docs/notifications.md): the subscriptions and alerts of an account, and the
// two rounds of the 15-minute job: the alerts checked, and the reports of a period that has just ended
// sent. Each delivery is claimed first with one UPDATE (repository.ts), so that of several instances
// exactly one sends; its webhook event is written in the same transaction. No Elysia here.
import { AppError, notFound, validationError } from "../errors";
import type { AccountRecord } from "../accounts/principal";
import { getAccountOrThrow } from "../accounts/read";
import { findLink } from "../links/read";
import type { Mailer, MailMessage } from "../mail/mailer";
import type { Logger } from "../http/logger";
import type { Postgres } from "../storage/postgres/client";
import type { Clickhouse } from "../storage/clickhouse/client";
import { emitEvent } from "../webhooks/outbox";
import { describeAlert, measure } from "./checks";
import { alertMail, reportMail } from "./mails";
import {
  alertJson,
  MAX_ALERTS,
  MAX_SUBSCRIPTIONS,
  subscriptionJson,
  type AlertKind,
  type CreateAlertBody,
  type CreateSubscriptionBody,
  type UpdateAlertBody,
  type UpdateSubscriptionBody,
} from "./model";
import { lastPeriod, reportFigures, type ReportFigures } from "./report-data";
import * as repo from "./repository";
import { hashUnsubscribeToken, UNSUBSCRIBE_TOKEN_FORMAT, unsubscribeToken } from "./tokens";

export interface NotifyDeps {
  pg: Postgres;
  ch: Clickhouse;
  baseUrl: string;
  appSecret: string;
  mailer: Mailer | null;
  logger: Logger;
}

export const unsubscribeUrl = (baseUrl: string, token: string) => `${baseUrl}/unsubscribe/${token}`;

export async function listSubscriptions(pg: Postgres, accountId: string) {
  return (await repo.listSubscriptions(pg.db, accountId)).map(subscriptionJson);
}

/** A new subscriber's first report is the one of the period that ends next, not the one that ended last. */
export async function createSubscription(
  d: { pg: Postgres; appSecret: string },
  accountId: string,
  body: CreateSubscriptionBody,
  nowMs = Date.now(),
) {
  const { pg } = d;
  if ((await repo.countSubscriptions(pg.db, accountId)) >= MAX_SUBSCRIPTIONS)
    throw new AppError("QUOTA_EXCEEDED", `An account has at most ${MAX_SUBSCRIPTIONS} report subscriptions`);
  const id = crypto.randomUUID();
  const row = await repo.insertSubscription(pg.db, {
    id,
    accountId,
    email: body.email.toLowerCase(),
    weekly: body.weekly ?? true,
    monthly: body.monthly ?? false,
    unsubscribeTokenHash: hashUnsubscribeToken(unsubscribeToken(d.appSecret, id)),
    weeklySentFor: lastPeriod("weekly", nowMs).start,
    monthlySentFor: lastPeriod("monthly", nowMs).start,
  });
  if (!row) throw new AppError("CONFLICT", "This address is already subscribed to the account's reports", { field: "body.email" });
  return subscriptionJson(row);
}

export async function getSubscription(pg: Postgres, accountId: string, id: string) {
  const row = await repo.findSubscription(pg.db, accountId, id);
  if (!row) throw notFound("Subscription");
  return subscriptionJson(row);
}

export async function updateSubscription(pg: Postgres, accountId: string, id: string, body: UpdateSubscriptionBody) {
  const row = await repo.updateSubscriptionRow(pg.db, accountId, id, body);
  if (!row) throw notFound("Subscription");
  return subscriptionJson(row);
}

export async function deleteSubscription(pg: Postgres, accountId: string, id: string) {
  if (!(await repo.deleteSubscriptionRow(pg.db, accountId, id))) throw notFound("Subscription");
  return { message: "Subscription deleted" };
}

/** The subscription an unsubscribe token names (its address, to show on the page), or null. */
export async function findByUnsubscribeToken(pg: Postgres, token: string) {
  if (!UNSUBSCRIBE_TOKEN_FORMAT.test(token)) return null;
  return (await repo.findSubscriptionByToken(pg.db, hashUnsubscribeToken(token))) ?? null;
}

export async function unsubscribe(pg: Postgres, token: string) {
  if (!UNSUBSCRIBE_TOKEN_FORMAT.test(token)) return null;
  return (await repo.deleteSubscriptionByToken(pg.db, hashUnsubscribeToken(token))) ?? null;
}

export async function listAlerts(pg: Postgres, accountId: string) {
  return (await repo.listAlerts(pg.db, accountId)).map(alertJson);
}

function checkThreshold(kind: AlertKind, threshold: number) {
  if (kind === "conversion_drop" && (threshold < 1 || threshold > 100))
    throw validationError("body.threshold", "must be a percentage from 1 to 100 for conversion_drop");
  if (kind !== "conversion_drop" && !Number.isInteger(threshold))
    throw validationError("body.threshold", "must be a whole number of visitors");
}

export async function createAlert(pg: Postgres, accountId: string, body: CreateAlertBody) {
  if (body.kind === "conversion_drop" && !body.link_id) throw validationError("body.link_id", "is required for conversion_drop");
  checkThreshold(body.kind, body.threshold);
  if (body.link_id && !(await findLink(pg.db, accountId, body.link_id))) throw notFound("Link");
  if ((await repo.countAlerts(pg.db, accountId)) >= MAX_ALERTS)
    throw new AppError("QUOTA_EXCEEDED", `An account has at most ${MAX_ALERTS} alerts`);
  const row = await repo.insertAlert(pg.db, {
    accountId,
    kind: body.kind,
    threshold: body.threshold,
    linkId: body.link_id ?? null,
    recipients: (body.recipients ?? []).map((r) => r.toLowerCase()),
    enabled: body.enabled ?? true,
  });
  return alertJson(row);
}

export async function getAlert(pg: Postgres, accountId: string, id: string) {
  const row = await repo.findAlert(pg.db, accountId, id);
  if (!row) throw notFound("Alert");
  return alertJson(row);
}

export async function updateAlert(pg: Postgres, accountId: string, id: string, body: UpdateAlertBody) {
  const current = await repo.findAlert(pg.db, accountId, id);
  if (!current) throw notFound("Alert");
  if (body.threshold !== undefined) checkThreshold(current.kind as AlertKind, body.threshold);
  const row = await repo.updateAlertRow(pg.db, accountId, id, {
    ...(body.threshold !== undefined ? { threshold: body.threshold } : {}),
    ...(body.recipients ? { recipients: body.recipients.map((r) => r.toLowerCase()) } : {}),
    ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
  });
  if (!row) throw notFound("Alert");
  return alertJson(row);
}

export async function deleteAlert(pg: Postgres, accountId: string, id: string) {
  if (!(await repo.deleteAlertRow(pg.db, accountId, id))) throw notFound("Alert");
  return { message: "Alert deleted" };
}

/** Sends each message; a failed one is logged and not tried again (the claim is spent: at most one per period). */
async function sendAll(deps: NotifyDeps, messages: MailMessage[]) {
  if (!deps.mailer) return 0;
  let sent = 0;
  for (const m of messages) {
    try {
      await deps.mailer.send(m);
      sent++;
    } catch (err) {
      deps.logger.error({ msg: "notification email failed", to: m.to, subject: m.subject, error: String(err) });
    }
  }
  return sent;
}

/** One round of alert checks: every armed alert measured, each triggered one claimed, then delivered. */
export async function checkAlerts(deps: NotifyDeps, nowMs = Date.now()): Promise<{ checked: number; triggered: number }> {
  const armed = await repo.armedAlerts(deps.pg.db);
  let triggered = 0;
  for (const alert of armed) {
    // One alert that cannot be measured (a store timing out) is logged; the others are still checked.
    const m = await measure(deps.ch, alert, nowMs).catch((err) => {
      deps.logger.error({ msg: "alert check failed", alert_id: alert.id, error: String(err) });
      return null;
    });
    if (!m) continue;
    if (!m.triggered) continue;
    const link = alert.linkId ? await findLink(deps.pg.db, alert.accountId, alert.linkId) : undefined;
    if (alert.linkId && !link) continue;
    const subject = link ? `/${link.shortCode}` : "the account";
    const title = describeAlert(alert.kind as AlertKind, alert.threshold, subject);
    const claimed = await deps.pg.db.transaction(async (tx) => {
      const row = await repo.claimAlert(tx, alert.id, m.value);
      if (!row) return null;
      await emitEvent(tx, alert.accountId, "alert.triggered", {
        alert_id: row.id,
        kind: row.kind,
        threshold: row.threshold,
        link_id: row.linkId,
        value: m.value,
        detail: m.detail,
        triggered_at: row.lastTriggeredAt?.toISOString() ?? new Date(nowMs).toISOString(),
      });
      return row;
    });
    if (!claimed) continue;
    triggered++;
    const consoleUrl = `${deps.baseUrl}/console/alerts`;
    await sendAll(
      deps,
      claimed.recipients.map((to) => alertMail(to, { title, value: m.value, detail: m.detail, consoleUrl })),
    );
  }
  return { checked: armed.length, triggered };
}

/** The reports of the week and the month that ended last, to every subscriber not sent them yet. */
export async function sendReports(deps: NotifyDeps, nowMs = Date.now()): Promise<{ sent: number }> {
  let sent = 0;
  for (const frequency of ["weekly", "monthly"] as const) {
    const period = lastPeriod(frequency, nowMs);
    const figures = new Map<string, Promise<{ account: AccountRecord; figures: ReportFigures }>>();
    for (const sub of await repo.dueSubscriptions(deps.pg.db, frequency, period.start)) {
      const of = figures.get(sub.accountId) ?? accountReport(deps, sub.accountId, period);
      figures.set(sub.accountId, of);
      // An account whose figures cannot be read now is logged and tried again next round (nothing is claimed yet).
      const report = await of.catch((err) => {
        deps.logger.error({ msg: "report figures failed", account_id: sub.accountId, error: String(err) });
        return null;
      });
      if (!report) continue;
      const { account, figures: f } = report;
      const claimed = await deps.pg.db.transaction(async (tx) => {
        const row = await repo.claimReport(tx, sub.id, frequency, period.start);
        if (!row) return null;
        await emitEvent(tx, sub.accountId, "report.sent", {
          subscription_id: row.id,
          email: row.email,
          frequency,
          period: { start: f.period.start, end: f.period.end },
          previous_period: { start: f.previous.start, end: f.previous.end },
          clicks: f.clicks,
          visitors: f.visitors,
          conversions: f.conversions,
          revenue: f.revenue,
          top_links: f.top_links,
          top_sources: f.top_sources,
          top_countries: f.top_countries,
          top_pages: f.top_pages,
        });
        return row;
      });
      if (!claimed) continue;
      sent += await sendAll(deps, [
        reportMail(claimed.email, {
          accountName: account.name,
          figures: f,
          unsubscribeUrl: unsubscribeUrl(deps.baseUrl, unsubscribeToken(deps.appSecret, claimed.id)),
        }),
      ]);
    }
  }
  return { sent };
}

async function accountReport(deps: NotifyDeps, accountId: string, period: ReturnType<typeof lastPeriod>) {
  const account = (await getAccountOrThrow(deps.pg, accountId)) as AccountRecord;
  return { account, figures: await reportFigures(deps, account, period) };
}
