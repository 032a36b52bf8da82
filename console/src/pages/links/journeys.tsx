// A link's journeys: the period's summary, its sessions (each opens to its events in order), and a
// funnel builder (steps typed as event names, event types or page URLs, drawn by <svc-funnel>).
import { useState } from "preact/hooks";
import { api, ok, okPage } from "../../api";
import { fmtAmount, fmtDateTime, fmtDay, fmtDuration, fmtNumber, fmtTime } from "../../format";
import type { JourneySession, JourneySummary } from "../../types";
import { useAsync } from "../../ui/async";
import { Failed, Loaded, Loading, Pagination, Select } from "../../ui/parts";
import { TERMS } from "../../vocabulary";
import { TrackerSnippet } from "../tracker-snippet";
import { ImportedJourney } from "./imported-journey";

const PERIODS = ["24h", "7d", "30d", "90d"] as const;
type Period = (typeof PERIODS)[number];

export function Journeys({ linkId, theme }: { linkId: string; theme: string }) {
  const [period, setPeriod] = useState<Period>("30d");
  const [page, setPage] = useState(1);
  const path = { link_id: linkId };
  const summary = useAsync(
    () => ok(api.GET("/journey/links/{link_id}/summary", { params: { path, query: { period } } })),
    [linkId, period],
  );
  const sessions = useAsync(
    () => okPage(api.GET("/journey/links/{link_id}/sessions", { params: { path, query: { period, page, limit: 10 } } })),
    [linkId, period, page],
  );
  const [steps, setSteps] = useState("");
  const [applied, setApplied] = useState("");

  return (
    <section class="card" aria-labelledby="journeys">
      <div class="section-head">
        <h2 id="journeys">Journeys</h2>
        <Select label="Period" value={period} onChange={(e) => (setPeriod((e.target as HTMLSelectElement).value as Period), setPage(1))}>
          {PERIODS.map((p) => (
            <option value={p}>Last {p}</option>
          ))}
        </Select>
      </div>
      <Loaded value={summary} what="Loading the journey summary">
        {(data) => (
          <>
            <dl class="stats" id="journey-summary">
              <div>
                <dt title={TERMS.trackedVisitors.definition}>{TERMS.trackedVisitors.name}</dt>
                <dd>{fmtNumber(data.total_visitors)}</dd>
                <dd class="hint">Counted once per period: a visitor_id is the site's own stable id.</dd>
              </div>
              <div>
                <dt>Sessions</dt>
                <dd>{fmtNumber(data.total_sessions)}</dd>
              </div>
              <div>
                <dt>Events</dt>
                <dd>{fmtNumber(data.total_events)}</dd>
              </div>
              <div>
                <dt>Average session</dt>
                <dd>{fmtDuration(data.avg_session_duration_seconds)}</dd>
              </div>
            </dl>
            {data.imported && <ImportedJourney imported={data.imported} />}
          </>
        )}
      </Loaded>
      <h3>Sessions</h3>
      <Loaded
        value={sessions}
        what="Loading sessions"
        empty={
          <>
            <>
              <p>No sessions in this period. Add the tracker to the destination page:</p>
              <TrackerSnippet linkId={linkId} />
            </>
          </>
        }
        isEmpty={(d) => d.items.length === 0}
      >
        {(data) => (
          <>
            <>
              <ul class="sessions">
                {data.items.map((s) => (
                  <SessionItem linkId={linkId} period={period} s={s} />
                ))}
              </ul>
              <Pagination page={data.page} totalPages={data.totalPages} total={data.total} onPage={setPage} />
            </>
          </>
        )}
      </Loaded>
      <h3>Funnel</h3>
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          setApplied(steps.trim());
        }}
      >
        <div class="field">
          <label for="funnel-steps">Steps, in order, separated by commas</label>
          <input
            id="funnel-steps"
            value={steps}
            onInput={(e) => setSteps((e.target as HTMLInputElement).value)}
            placeholder="page_view, signup, purchase"
          />
        </div>
        <button type="submit">Show funnel</button>
      </form>
      {applied && <svc-funnel id="w-funnel" link-id={linkId} steps={applied.replace(/\s*,\s*/g, ",")} period={period} theme={theme} />}
    </section>
  );
}

function SessionItem({ linkId, period, s }: { linkId: string; period: Period; s: JourneySession }) {
  const [open, setOpen] = useState(false);
  return (
    <li>
      <button type="button" class="session-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span>{fmtDateTime(s.started_at)}</span>
        <span>
          {fmtNumber(s.event_count)} events · {fmtDuration(s.duration_seconds)}
          {s.converted && <span class="badge ok">Converted</span>}
        </span>
        <span class="muted clip">{s.entry_page}</span>
      </button>
      {open && <SessionEvents linkId={linkId} period={period} sessionId={s.session_id} />}
    </li>
  );
}

function SessionEvents({ linkId, period, sessionId }: { linkId: string; period: Period; sessionId: string }) {
  const events = useAsync(
    async () =>
      (
        await ok(
          api.GET("/journey/links/{link_id}/events", {
            params: { path: { link_id: linkId }, query: { period, session_id: sessionId, limit: 200 } },
          }),
        )
      ).reverse(),
    [sessionId],
  );
  if (events.state === "error") return <Failed error={events.error} retry={events.reload} />;
  if (!events.data) return <Loading what="Loading the session's events" />;
  return (
    <ol class="events">
      {events.data.map((e) => (
        <li>
          <time dateTime={e.timestamp}>{fmtTime(e.timestamp)}</time> <strong>{e.event_name ?? e.event_type}</strong>{" "}
          {e.scroll_percent !== null && <span class="badge">scrolled {fmtNumber(e.scroll_percent)}%</span>}{" "}
          {e.time_on_page !== null && <span class="badge">{fmtDuration(e.time_on_page)} on the page</span>}{" "}
          {e.revenue_cents !== null && (
            <span class="badge ok">
              {fmtAmount(e.revenue_cents / 100)} {e.currency}
            </span>
          )}{" "}
          <span class="muted clip">{e.page_url}</span>
        </li>
      ))}
    </ol>
  );
}

/** Another product's days imported for the link (a Plausible export), shown beside the totals, never in them. */
