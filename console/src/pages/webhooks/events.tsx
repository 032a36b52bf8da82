// The events an endpoint subscribes to, as labelled checkboxes with "all" and "none".
import { EVENT_TYPES } from "../../../../server/webhooks/event-types";
import type { Webhook } from "../../types";

/** An event an endpoint can subscribe to, as the API document names them. */
export type WebhookEvent = Webhook["events"][number];

// Every event the server sends is one the API document lets an endpoint subscribe to.
const EVENTS: readonly WebhookEvent[] = EVENT_TYPES;

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
