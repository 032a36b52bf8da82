// Retention computed independently from the events a test sent: the weekly cohorts the API must answer.
const DAY = 86_400_000;
const WEEK = 7 * DAY;

/** The Monday 00:00 UTC of the week holding `ms` (1970-01-01 was a Thursday). */
export const monday = (ms: number) => Math.floor((ms - 4 * DAY) / WEEK) * WEEK + 4 * DAY;

/** The cohorts of `weeks` weeks ending with the week starting `lastMonday`, counting events before `toMs` only. */
export function retentionModel(events: { visitor_id: string; at: number }[], weeks: number, toMs: number, lastMonday: number) {
  const firstMonday = lastMonday - (weeks - 1) * WEEK;
  const byVisitor = new Map<string, number[]>();
  for (const e of events) if (e.at < toMs) byVisitor.set(e.visitor_id, [...(byVisitor.get(e.visitor_id) ?? []), e.at]);
  const cohorts = [];
  let returning = 0;
  for (let week = firstMonday; week <= lastMonday; week += WEEK) {
    const members = [...byVisitor.values()].filter((ats) => monday(Math.min(...ats)) === week);
    returning += members.filter((ats) => ats.some((at) => monday(at) > week)).length;
    const returns = [];
    for (let offset = 1; week + offset * WEEK <= lastMonday; offset++) {
      const n = members.filter((ats) => ats.some((at) => monday(at) === week + offset * WEEK)).length;
      returns.push({ week_offset: offset, visitors: n, rate: members.length ? Math.round((n / members.length) * 10_000) / 100 : 0 });
    }
    cohorts.push({ week: new Date(week).toISOString().slice(0, 10), visitors: members.length, returns });
  }
  return { weeks, visitors: cohorts.reduce((a, c) => a + c.visitors, 0), returning, cohorts };
}
