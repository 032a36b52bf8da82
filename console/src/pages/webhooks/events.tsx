// The events an endpoint subscribes to, as labelled checkboxes with "all" and "none".
import type { EventType } from "../../../../server/webhooks/model";
import type { Webhook } from "../../types";

/** An event an endpoint can subscribe to, as the API document names them. */
export type WebhookEvent = Webhook["events"][number];

const EVENTS = [
  "link.created",
  "link.updated",
  "link.deleted",
  "link.expired",
  "domain.verified",
  "domain.expired",
  "domain.suspended",
  "api_key.created",
  "api_key.revoked",
  "team.member_added",
  "team.member_removed",
  "subscription.upgraded",
  "subscription.downgraded",
  "bulk_import.completed",
  "conversion",
] as const satisfies readonly (EventType & WebhookEvent)[];
// Fails to compile when the server gains an event type this list does not offer.
const everyEventOffered: Exclude<EventType, (typeof EVENTS)[number]> extends never ? true : false = true;
void everyEventOffered;

export function EventPicker({ value, onChange, error }: { value: WebhookEvent[]; onChange: (v: WebhookEvent[]) => void; error?: string }) {
  return (
    <fieldset class="scopes events-picker" aria-describedby={error ? "events-error" : undefined}>
      <legend>Events</legend>
      <div class="presets">
        <button type="button" class="secondary" onClick={() => onChange([...EVENTS])}>
          All events
        </button>
        <button type="button" class="secondary" onClick={() => onChange([])}>
          None
        </button>
      </div>
      {EVENTS.map((ev) => (
        <label class="check">
          <input
            type="checkbox"
            name="event"
            value={ev}
            checked={value.includes(ev)}
            onChange={(e) => onChange((e.target as HTMLInputElement).checked ? [...value, ev] : value.filter((x) => x !== ev))}
          />{" "}
          <code>{ev}</code>
        </label>
      ))}
      {error && (
        <small id="events-error" class="field-error">
          Choose at least one event.
        </small>
      )}
    </fieldset>
  );
}
