// The pages before a session: sign in, sign up (open mode), accept an invitation or the setup link,
// forgot password, and set a new password from a reset link. Links carry their token in the fragment
// (#…), which browsers never send to a server or in a Referer.
import { useEffect, useState } from "preact/hooks";
import { CONSOLE, get, post } from "../api";
import { navigate, type currentRoute } from "../router";
import type { AuthConfig, InvitationPreview, Session } from "../types";
import { useAsync, useSubmit } from "../ui/async";
import { A, Alert, Field, Loading, Status } from "../ui/parts";

type Props = { route: ReturnType<typeof currentRoute>; onSignedIn: (s: Session) => void };
const AUTH = `${CONSOLE}/auth`;
const formValues = (e: Event) => Object.fromEntries(new FormData(e.target as HTMLFormElement)) as Record<string, string>;

export function AuthPages({ route, onSignedIn }: Props) {
  const config = useAsync(() => get<AuthConfig>(`${AUTH}/config`), []);
  const cfg = config.data;
  let page;
  if (route.path === "/setup" || route.path === "/invite") page = <Accept token={route.hash} onSignedIn={onSignedIn} cfg={cfg} />;
  else if (route.path === "/forgot") page = <Forgot cfg={cfg} />;
  else if (route.path === "/reset") page = <Reset token={route.hash} cfg={cfg} />;
  else if (route.path === "/sign-up") page = <SignUp onSignedIn={onSignedIn} cfg={cfg} />;
  else page = <SignIn onSignedIn={onSignedIn} cfg={cfg} />;
  return (
    <main id="main" class="auth">
      <p class="brand">svc console</p>
      {page}
    </main>
  );
}

function SignIn({ onSignedIn, cfg }: { onSignedIn: Props["onSignedIn"]; cfg?: AuthConfig }) {
  const form = useSubmit(async (v: Record<string, string>) => onSignedIn(await post<Session>(`${AUTH}/sign-in`, v)));
  return (
    <form class="card" onSubmit={(e) => (e.preventDefault(), form.submit(formValues(e)))}>
      <h1 tabIndex={-1}>Sign in</h1>
      <Alert error={form.error} />
      <Field label="Email" name="email" type="email" autocomplete="username" required error={form.error?.fields.email} />
      <Field label="Password" name="password" type="password" autocomplete="current-password" required />
      <button type="submit" disabled={form.busy}>
        {form.busy ? "Signing in…" : "Sign in"}
      </button>
      <p class="muted">
        <A to="/forgot">Forgot your password?</A>
        {cfg?.signup_mode === "open" && (
          <>
            {" · "}
            <A to="/sign-up">Create an account</A>
          </>
        )}
      </p>
    </form>
  );
}

function SignUp({ onSignedIn, cfg }: { onSignedIn: Props["onSignedIn"]; cfg?: AuthConfig }) {
  const form = useSubmit(async (v: Record<string, string>) => onSignedIn(await post<Session>(`${AUTH}/sign-up`, v)));
  if (cfg && cfg.signup_mode !== "open")
    return (
      <div class="card">
        <h1 tabIndex={-1}>Sign-up is closed</h1>
        <p>This server creates users by invitation only. Ask an owner of your team for an invitation link.</p>
        <A to="/sign-in">Sign in</A>
      </div>
    );
  return (
    <form class="card" onSubmit={(e) => (e.preventDefault(), form.submit(formValues(e)))}>
      <h1 tabIndex={-1}>Create an account</h1>
      <Alert error={form.error} />
      <Field label="Account name" name="account_name" required error={form.error?.fields.account_name} />
      <Field label="Email" name="email" type="email" autocomplete="username" required error={form.error?.fields.email} />
      <NewPassword cfg={cfg} error={form.error?.fields.password} />
      <button type="submit" disabled={form.busy}>
        Create account
      </button>
      <p class="muted">
        <A to="/sign-in">I already have a user</A>
      </p>
    </form>
  );
}

const NewPassword = ({
  cfg,
  error,
  label = "Password",
  name = "password",
}: {
  cfg?: AuthConfig;
  error?: string;
  label?: string;
  name?: string;
}) => (
  <Field
    label={label}
    name={name}
    type="password"
    autocomplete="new-password"
    required
    minLength={cfg?.password_min_length}
    hint={`At least ${cfg?.password_min_length ?? 10} characters.`}
    error={error}
  />
);

function Accept({ token, onSignedIn, cfg }: { token: string; onSignedIn: Props["onSignedIn"]; cfg?: AuthConfig }) {
  const preview = useAsync(() => post<InvitationPreview>(`${AUTH}/invitation`, { token }), [token]);
  const form = useSubmit(async (v: Record<string, string>) =>
    onSignedIn(await post<Session>(`${AUTH}/accept-invitation`, { ...v, token })),
  );
  if (preview.state === "loading") return <Loading what="Checking the link" />;
  if (preview.state === "error")
    return (
      <div class="card">
        <h1 tabIndex={-1}>This link does not work</h1>
        <Alert error={preview.error} />
        <p>Ask for a new link, or sign in if you already have a user.</p>
        <A to="/sign-in">Sign in</A>
      </div>
    );
  const inv = preview.data;
  return (
    <form class="card" onSubmit={(e) => (e.preventDefault(), form.submit(formValues(e)))}>
      <h1 tabIndex={-1}>{inv.is_setup ? "Set up your console" : `Join ${inv.account_name}`}</h1>
      <p>
        {inv.is_setup
          ? `Choose the email and password of the owner of “${inv.account_name}”. This link works once.`
          : `You are invited to ${inv.account_name} as ${inv.role}.`}
      </p>
      <Alert error={form.error} />
      {inv.email ? (
        <p>
          Email: <strong>{inv.email}</strong>
        </p>
      ) : (
        <Field label="Email" name="email" type="email" autocomplete="username" required error={form.error?.fields.email} />
      )}
      {inv.user_exists ? (
        <Field
          label="Your password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
          hint="You already have a user: enter its password."
        />
      ) : (
        <NewPassword cfg={cfg} error={form.error?.fields.password} />
      )}
      <button type="submit" disabled={form.busy}>
        {inv.is_setup ? "Create the owner" : "Accept the invitation"}
      </button>
    </form>
  );
}

function Forgot({ cfg }: { cfg?: AuthConfig }) {
  const [sent, setSent] = useState("");
  const form = useSubmit(async (v: Record<string, string>) =>
    setSent((await post<{ message: string }>(`${AUTH}/password-reset`, v)).message),
  );
  if (cfg?.password_reset === "operator")
    return (
      <div class="card">
        <h1 tabIndex={-1}>Forgot your password?</h1>
        <p>
          This server sends no email. Whoever runs it makes a reset link on the server's machine, in the folder where they ran{" "}
          <code>npm start</code>: stop the server, run
        </p>
        <pre id="recover-command">npm run recover -- you@example.com</pre>
        <p>
          then start it again with <code>npm start</code> and open the printed link. Without an email, the command prints a link that makes
          a new owner (for a lost setup link, or when nobody remembers the owner's email).
        </p>
        <A to="/sign-in">Back to sign-in</A>
      </div>
    );
  return (
    <form class="card" onSubmit={(e) => (e.preventDefault(), form.submit(formValues(e)))}>
      <h1 tabIndex={-1}>Forgot your password?</h1>
      <p>We will email you a link that sets a new one.</p>
      <Alert error={form.error} />
      <Status>{sent}</Status>
      <Field label="Email" name="email" type="email" autocomplete="username" required />
      <button type="submit" disabled={form.busy || !!sent}>
        Email me a link
      </button>
      <p class="muted">
        <A to="/sign-in">Back to sign-in</A>
      </p>
    </form>
  );
}

function Reset({ token, cfg }: { token: string; cfg?: AuthConfig }) {
  const [done, setDone] = useState(false);
  const form = useSubmit(async (v: Record<string, string>) => {
    await post(`${AUTH}/password-reset/confirm`, { token, password: v.password });
    setDone(true);
  });
  useEffect(() => {
    if (done) setTimeout(() => navigate("/sign-in"), 1500);
  }, [done]);
  return (
    <form class="card" onSubmit={(e) => (e.preventDefault(), form.submit(formValues(e)))}>
      <h1 tabIndex={-1}>Set a new password</h1>
      <Alert error={form.error} />
      <Status>{done ? "Password changed. Taking you to sign-in…" : ""}</Status>
      <NewPassword cfg={cfg} label="New password" error={form.error?.fields.password} />
      <button type="submit" disabled={form.busy || done}>
        Set password
      </button>
    </form>
  );
}
