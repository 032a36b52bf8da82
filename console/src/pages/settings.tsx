// The signed-in user's settings: change the password, see where they are signed in, sign out elsewhere.
import { useState } from "preact/hooks";
import { CONSOLE, del, get, post } from "../api";
import { fmtDateTime, fmtRelative } from "../format";
import { useSession } from "../session";
import type { SessionItem } from "../types";
import { useAsync, useSubmit } from "../ui/async";
import { Alert, Field, FormCard, LoadedList, Loading, PageHeader, Status } from "../ui/parts";

export function SettingsPage() {
  const { session } = useSession();
  const sessions = useAsync(() => get<SessionItem[]>(`${CONSOLE}/sessions`), []);
  const [note, setNote] = useState("");
  const change = useSubmit(async (form: HTMLFormElement) => {
    const res = await post<{ message: string }>(`${CONSOLE}/session/password`, Object.fromEntries(new FormData(form)));
    form.reset();
    setNote(res.message);
    sessions.reload();
  });
  const end = useSubmit(async (path: `${typeof CONSOLE}/${string}`, done: string) => {
    await del(path);
    setNote(done);
    sessions.reload();
  });
  return (
    <>
      <PageHeader title="Your settings" />
      <p class="muted">Signed in as {session.user.email}.</p>
      <Status>{note}</Status>
      <FormCard id="password" title="Change your password" action={change}>
        <Field
          label="Current password"
          name="current_password"
          type="password"
          autocomplete="current-password"
          required
          error={change.error?.fields.current_password}
        />
        <Field
          label="New password"
          name="new_password"
          type="password"
          autocomplete="new-password"
          required
          minLength={10}
          hint="At least 10 characters. Your other sessions are signed out."
          error={change.error?.fields.new_password}
        />
        <button type="submit" disabled={change.busy}>
          Change password
        </button>
      </FormCard>
      <section class="card" aria-labelledby="sessions">
        <div class="section-head">
          <h2 id="sessions">Where you are signed in</h2>
          <button
            type="button"
            class="secondary"
            onClick={() => end.submit(`${CONSOLE}/sessions/others`, "Signed out of your other sessions")}
            disabled={end.busy}
          >
            Sign out of other sessions
          </button>
        </div>
        <Alert error={end.error} />
        <LoadedList
          value={sessions}
          what="Loading sessions"
          class="plain"
          id="session-list"
          item={(s) => (
            <li>
              <strong>{s.user_agent ?? "Unknown browser"}</strong> {s.current && <span class="badge ok">this browser</span>}
              <div class="muted">
                {s.ip} · signed in {fmtDateTime(s.created_at)} · last seen {fmtRelative(s.last_seen_at)}
              </div>
              {!s.current && (
                <button type="button" class="secondary" onClick={() => end.submit(`${CONSOLE}/sessions/${s.id}`, "Session signed out")}>
                  Sign out <span class="sr-only">this session</span>
                </button>
              )}
            </li>
          )}
        />
      </section>
    </>
  );
}
