// The team: members and their roles (owners and admins change them), open invitations, and an invite
// form; without an SMTP server the invitation link is shown here to pass on. Only a hash of an invitation's
// token is stored, so its link cannot be shown again: "New link" invites again, which replaces the token
// (the old link stops working) and shows the new link once, or sends it by email.
import { useState } from "preact/hooks";
import { CONSOLE, del, get, patch, post } from "../api";
import { fmtDateTime } from "../format";
import { useSession } from "../session";
import type { Invitation, Team } from "../types";
import { useAsync, useSubmit } from "../ui/async";
import { Alert, CopyButton, Field, FormCard, Loaded, Loading, PageHeader, Select, Status, TableHead } from "../ui/parts";

const ROLES = ["owner", "admin", "member", "viewer"];
const ROLE_TEXT: Record<string, string> = {
  owner: "everything, including owners and billing tier",
  admin: "everything but owners",
  member: "links, read everything else",
  viewer: "read only",
};

export function TeamPage() {
  const { can, session, refresh } = useSession();
  const team = useAsync(() => get<Team>(`${CONSOLE}/team`), []);
  const [invited, setInvited] = useState<Invited | null>(null);
  const [renewed, setRenewed] = useState<Invited | null>(null);
  const [note, setNote] = useState("");
  const manage = can("team:manage");
  const roles = can("owners:manage") ? ROLES : ROLES.slice(1);
  const invite = useSubmit(async (form: HTMLFormElement) => {
    const data = Object.fromEntries(new FormData(form));
    const res = await post<InviteResult>(`${CONSOLE}/team/invitations`, data);
    setInvited({ email: String(data.email), url: res.invitation_url, sent: res.email_sent });
    setRenewed(null);
    form.reset();
    team.reload();
  });
  const renew = useSubmit(async (i: Invitation) => {
    const res = await post<InviteResult>(`${CONSOLE}/team/invitations`, { email: i.email, role: i.role });
    setRenewed({ email: i.email!, url: res.invitation_url, sent: res.email_sent });
    setInvited(null);
    team.reload();
  });
  const act = useSubmit(async (what: () => Promise<unknown>, done: string) => {
    await what();
    setNote(done);
    team.reload();
    await refresh();
  });
  return (
    <>
      <PageHeader title="Team" />
      {manage && (
        <FormCard id="invite" title="Invite someone" action={invite}>
          {invited && <InvitedBox invited={invited} />}
          <div class="inline-form">
            <Field label="Email" name="email" type="email" required error={invite.error?.fields.email} />
            <Select label="Role" name="role">
              {roles.map((r) => (
                <option value={r} selected={r === "member"}>
                  {r} — {ROLE_TEXT[r]}
                </option>
              ))}
            </Select>
            <button type="submit" disabled={invite.busy}>
              Invite
            </button>
          </div>
        </FormCard>
      )}
      <Alert error={act.error} />
      <Status>{note}</Status>
      <Loaded value={team} what="Loading the team">
        {(data) => (
          <>
            <>
              <table id="members">
                <caption class="sr-only">Members</caption>
                <TableHead columns={["Email", "Role", "Since"]} actions />
                <tbody>
                  {data.members.map((m) => {
                    // Not on oneself: changing one's own role or removing oneself is done by another owner or admin.
                    const editable = manage && !m.you && (m.role !== "owner" || can("owners:manage"));
                    return (
                      <tr>
                        <td data-label="Email">
                          {m.email} {m.you && <span class="badge">you</span>}{" "}
                          {m.pending && <span class="badge warn">has not signed in yet</span>}
                        </td>
                        <td data-label="Role">
                          {editable ? (
                            <label>
                              <span class="sr-only">Role of {m.email}</span>
                              <select
                                value={m.role}
                                onChange={(e) => {
                                  const role = (e.target as HTMLSelectElement).value;
                                  void act.submit(() => patch(`${CONSOLE}/team/members/${m.id}`, { role }), `${m.email} is now ${role}`);
                                }}
                              >
                                {roles.map((r) => (
                                  <option value={r}>{r}</option>
                                ))}
                              </select>
                            </label>
                          ) : (
                            m.role
                          )}
                        </td>
                        <td data-label="Since">{fmtDateTime(m.created_at)}</td>
                        <td>
                          {editable && (
                            <button
                              type="button"
                              class="danger"
                              onClick={() =>
                                confirm(`Remove ${m.email} from ${session.account.name}?`) &&
                                act.submit(() => del(`${CONSOLE}/team/members/${m.id}`), `${m.email} removed`)
                              }
                            >
                              Remove <span class="sr-only">{m.email}</span>
                            </button>
                          )}
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
              {data.invitations.length > 0 && (
                <section aria-labelledby="pending">
                  <h2 id="pending">Open invitations</h2>
                  <p class="hint">
                    An invitation's link is shown once. "New link" makes another (the earlier one stops working) and emails it when this
                    server sends email.
                  </p>
                  <Alert error={renew.error} />
                  {renewed && <InvitedBox invited={renewed} again />}
                  <ul class="plain">
                    {data.invitations.map((i) => (
                      <li>
                        {i.email} as {i.role}, until {fmtDateTime(i.expires_at)}{" "}
                        <button type="button" class="secondary" disabled={renew.busy} onClick={() => void renew.submit(i)}>
                          New link <span class="sr-only">for {i.email}</span>
                        </button>{" "}
                        <button
                          type="button"
                          class="secondary"
                          onClick={() => act.submit(() => del(`${CONSOLE}/team/invitations/${i.id}`), `Invitation of ${i.email} withdrawn`)}
                        >
                          Withdraw <span class="sr-only">the invitation of {i.email}</span>
                        </button>
                      </li>
                    ))}
                  </ul>
                </section>
              )}
            </>
          </>
        )}
      </Loaded>
    </>
  );
}

type Invited = { email: string; url?: string; sent: boolean };
type InviteResult = { invitation: Invitation; email_sent: boolean; invitation_url?: string };

/** What became of an invitation: sent by email, or its link to pass on, shown this once with Copy. */
function InvitedBox({ invited, again = false }: { invited: Invited; again?: boolean }) {
  return (
    <div class="new-secret" role="status">
      {invited.sent ? (
        <p>
          {again ? "A new invitation" : "An invitation"} is on its way to {invited.email}.
        </p>
      ) : (
        <>
          <p>
            This server sends no email: give {invited.email} this {again ? "new " : ""}link (it works once, for 7 days
            {again ? "; the earlier link no longer works" : ""}).
          </p>
          <p class="secret">
            <code class="invitation-url" id={again ? "renewed-invitation-url" : "invitation-url"}>
              {invited.url}
            </code>{" "}
            <CopyButton text={invited.url!} label="Copy link" />
          </p>
        </>
      )}
    </div>
  );
}
