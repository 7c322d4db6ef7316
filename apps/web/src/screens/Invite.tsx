import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent, type ReactNode } from "react";
import { Link, useNavigate } from "react-router";
import { messageOf, previewInvitation, setCsrfToken, signUpWithInvitation, useTRPC, type InvitationPreview, type Me } from "../trpc.ts";
import { ErrorBanner, Field, formatMoment } from "../ui.tsx";
import { useWorkspaceChanged, withArticle } from "../workspace.ts";

/**
 * An invitation link's page, `/app/invite/{token}` (CONTRACT §24, docs/teams.md): where it leads (the
 * public preview), then a signed-in user joins in one click and the session switches there; someone
 * without an account enters a name, an email and a password and is signed in, acting in the workspace;
 * someone with an account who is signed out signs in first (`signIn`: the sign-in screen, which brings
 * them back here). A used, expired or revoked link says so.
 */
export function InviteScreen({ token, me, signIn }: { token: string; me: Me | null; signIn: ReactNode }) {
  const [isSigningIn, setSigningIn] = useState(false);
  const preview = useQuery({ queryKey: ["invitation-preview", token], queryFn: () => previewInvitation(token), retry: false, staleTime: Infinity, gcTime: 0 });
  if (isSigningIn && !me) return signIn;
  const answer = preview.data;
  return (
    <main id="main" className="center">
      <div className="card narrow invite">
        {preview.isPending ? (
          <p aria-live="polite">Loading the invitation…</p>
        ) : !answer?.ok ? (
          <>
            <h1>This invitation does not work</h1>
            <ErrorBanner message={answer?.message ?? (preview.error ? messageOf(preview.error) : null)} />
            <p>Ask the person who invited you for a new link.</p>
            <p>
              <Link to="/">Go to the dashboard</Link>
            </p>
          </>
        ) : (
          <>
            <h1>Join {answer.data.workspace.name}</h1>
            <p data-testid="invitation-summary">
              {answer.data.invited_by ?? "An admin"} invited you to the workspace <strong>{answer.data.workspace.name}</strong> as {withArticle(answer.data.role)}. The link works once, until{" "}
              {formatMoment(answer.data.expires_at)}.
            </p>
            {me ? <JoinAsMember token={token} me={me} preview={answer.data} /> : <SignUp token={token} preview={answer.data} onSignIn={() => setSigningIn(true)} />}
          </>
        )}
      </div>
    </main>
  );
}

/** A signed-in user: one click joins; a password session then switches to the workspace. */
function JoinAsMember({ token, me, preview }: { token: string; me: Me; preview: InvitationPreview }) {
  const trpc = useTRPC();
  const changed = useWorkspaceChanged();
  const [joined, setJoined] = useState(false);
  const doSwitch = useMutation(trpc.workspaces.switch.mutationOptions({ onSuccess: (workspace) => changed(workspace) }));
  const accept = useMutation(
    trpc.workspaces.invitations.accept.mutationOptions({
      onSuccess: (workspace) => {
        setJoined(true);
        // A session opened with an API key stays in the key's workspace (CONTRACT §24).
        if (me.can_switch_workspace) doSwitch.mutate({ id: workspace.id });
      },
    }),
  );
  const error = accept.error ?? doSwitch.error;
  if (joined && (!me.can_switch_workspace || doSwitch.isError)) {
    return (
      <>
        <p role="status">You joined {preview.workspace.name}.</p>
        <ErrorBanner message={doSwitch.error ? messageOf(doSwitch.error) : null} />
        {me.can_switch_workspace ? null : <p>This session was opened with an API key and stays in the key&apos;s workspace: sign in with your password to switch to {preview.workspace.name}.</p>}
        <p>
          <Link to="/">Go to the dashboard</Link>
        </p>
      </>
    );
  }
  return (
    <>
      <p className="muted">Signed in as {me.email}.</p>
      <ErrorBanner message={error ? messageOf(error) : null} />
      <button type="button" disabled={accept.isPending || doSwitch.isPending} onClick={() => accept.mutate({ token })}>
        Join {preview.workspace.name}
      </button>
      <p>
        <Link to="/">Not now</Link>
      </p>
    </>
  );
}

/** Someone new: their account, then they are signed in, acting in the workspace. */
function SignUp({ token, preview, onSignIn }: { token: string; preview: InvitationPreview; onSignIn: () => void }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState("");
  const [email, setEmail] = useState(preview.email ?? "");
  const [password, setPassword] = useState("");
  const [isBusy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<{ message: string; fieldErrors: Record<string, string[]> } | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setRefusal(null);
    const answer = await signUpWithInvitation({ token, name, email, password });
    setBusy(false);
    if (!answer.ok) return setRefusal(answer);
    setCsrfToken(answer.data.csrf_token);
    navigate("/", { replace: true });
    // Signed in now: every query (the account first) starts afresh.
    await queryClient.resetQueries();
  };
  const errors = refusal?.fieldErrors ?? {};
  return (
    <form onSubmit={(e) => void submit(e)} aria-labelledby="sign-up-title">
      <h2 id="sign-up-title">Create your account</h2>
      <ErrorBanner message={refusal && (!Object.keys(errors).length || errors.token) ? refusal.message : null} />
      <Field label="Your name" errors={errors.name}>
        {(p) => <input {...p} name="name" autoComplete="name" required maxLength={255} value={name} onChange={(e) => setName(e.target.value)} />}
      </Field>
      <Field label="Email" errors={errors.email}>
        {(p) => <input {...p} name="email" type="email" autoComplete="username" required maxLength={255} value={email} onChange={(e) => setEmail(e.target.value)} />}
      </Field>
      <Field label="Password" errors={errors.password} hint="At least 10 characters.">
        {(p) => <input {...p} name="password" type="password" autoComplete="new-password" required minLength={10} maxLength={128} value={password} onChange={(e) => setPassword(e.target.value)} />}
      </Field>
      <button type="submit" disabled={isBusy}>
        {isBusy ? "Creating your account…" : `Create account and join ${preview.workspace.name}`}
      </button>
      <p>
        <button type="button" className="link-button" onClick={onSignIn}>
          Already have an account? Sign in to join
        </button>
      </p>
    </form>
  );
}
