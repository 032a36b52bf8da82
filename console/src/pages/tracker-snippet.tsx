// Tracker onboarding: the two script tags for the destination page, with the key and the link id filled
// in, a copy button, and a live check that says when the link's first journey event has arrived.
import { useEffect, useState } from "preact/hooks";
import { api, ok, okPage } from "../api";
import { fmtNumber } from "../format";
import { useSession } from "../session";
import { useAsync } from "../ui/async";
import { CopyButton, Select } from "../ui/parts";

/** How often the live check asks whether an event arrived (events reach reports within seconds). */
const POLL_MS = 3000;

export const snippet = (origin: string, key: string, linkId: string) =>
  `<script>window.svc = window.svc || function () { (svc.q = svc.q || []).push(arguments) }</script>\n` +
  `<script defer src="${origin}/t.js" data-key="${key}" data-link-id="${linkId}"></script>`;

export function TrackerSnippet({ trackerKey, linkId }: { trackerKey?: string; linkId?: string }) {
  const { can } = useSession();
  const links = useAsync(
    () => (linkId ? Promise.resolve([]) : okPage(api.GET("/links", { params: { query: { per_page: 100 } } })).then((p) => p.items)),
    [linkId],
  );
  const [picked, setPicked] = useState(linkId ?? "");
  const id = linkId ?? picked;
  const key = trackerKey ?? "YOUR_TRACKER_KEY";
  const code = snippet(location.origin, key, id || "LINK_ID");
  return (
    <div class="tracker-snippet" id="tracker-snippet">
      {!linkId && (
        <Select
          label="Link whose destination page gets the tracker"
          value={picked}
          onChange={(e) => setPicked((e.target as HTMLSelectElement).value)}
        >
          <option value="">Choose a link</option>
          {(links.data ?? []).map((l) => (
            <option value={l.id}>{l.title || l.short_code}</option>
          ))}
        </Select>
      )}
      <p>
        Paste this into the <code>&lt;head&gt;</code> of the destination page
        {trackerKey
          ? ""
          : can("keys:manage")
            ? ", with a key that has only the journey:write scope (API keys page) in place of YOUR_TRACKER_KEY"
            : ", with a key that has only the journey:write scope (an owner or admin of this account makes it) in place of YOUR_TRACKER_KEY"}
        :
      </p>
      <pre id="tracker-code">{code}</pre>
      <CopyButton text={code} label="Copy the snippet" />
      {id && can("journey:read") && <FirstEvent linkId={id} />}
    </div>
  );
}

/** Polls the link's journey summary until an event has arrived, then says so. */
function FirstEvent({ linkId }: { linkId: string }) {
  const [events, setEvents] = useState<number | null>(null);
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const check = async () => {
      const n = await ok(
        api.GET("/journey/links/{link_id}/summary", { params: { path: { link_id: linkId }, query: { period: "24h" } } }),
      ).then(
        (s) => s.total_events,
        () => 0,
      );
      if (stopped) return;
      setEvents(n);
      if (n === 0) timer = setTimeout(check, POLL_MS);
    };
    setEvents(null);
    void check();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [linkId]);
  return (
    <p role="status" class={events ? "first-event ok" : "first-event"} id="first-event">
      {events
        ? `First event received: ${fmtNumber(events)} in the last 24 hours. The tracker works.`
        : "Waiting for the first event… (open the destination page in a browser; this updates by itself)"}
    </p>
  );
}
