import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import { fieldErrorsOf, signIn, signInProviders, SSO_START_URL, useTRPC, type Me } from "../trpc.ts";
import { ErrorBanner, Field } from "../ui.tsx";

/**
 * Sign in with email and password, or — a user without a password — once with an API key; or with
 * single sign-on when the service has it (docs/sso.md). Refusals show their message (a workspace that
 * requires SSO: 403 `sso_required`).
 */
export function SignInScreen({ onSignedIn }: { onSignedIn: (me: Me) => void }) {
  const [hasSso, setHasSso] = useState(false);
  useEffect(() => {
    let isCurrent = true;
    void signInProviders().then((providers) => isCurrent && setHasSso(providers.sso));
    return () => void (isCurrent = false);
  }, []);
  const [withKey, setWithKey] = useState(false);
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [apiKey, setApiKey] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const result = await signIn(withKey ? { api_key: apiKey } : { email, password });
    setBusy(false);
    if (result.ok) onSignedIn(result.me);
    else setError(result.message);
  };

  return (
    <main id="main" className="center">
      <form className="card narrow" onSubmit={(e) => void submit(e)} aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Sign in</h1>
        <ErrorBanner message={error} />
        {hasSso ? (
          <p>
            <a className="button" href={SSO_START_URL}>
              Sign in with SSO
            </a>
          </p>
        ) : null}
        {withKey ? (
          <Field label="API key" hint="For a first sign-in only: you will choose a password next.">
            {(p) => <input {...p} name="api_key" type="password" autoComplete="off" required value={apiKey} onChange={(e) => setApiKey(e.target.value)} />}
          </Field>
        ) : (
          <>
            <Field label="Email">{(p) => <input {...p} name="email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />}</Field>
            <Field label="Password">
              {(p) => <input {...p} name="password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />}
            </Field>
          </>
        )}
        <button type="submit" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
        <button type="button" className="link-button" onClick={() => (setWithKey(!withKey), setError(null))}>
          {withKey ? "Sign in with email and password" : "No password yet? Sign in with your API key"}
        </button>
      </form>
    </main>
  );
}

/** The form that sets (or, with the current one, changes) the password. */
export function PasswordForm({ needsCurrent, onDone }: { needsCurrent: boolean; onDone?: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [current, setCurrent] = useState("");
  const [password, setPassword] = useState("");
  const [repeat, setRepeat] = useState("");
  const [mismatch, setMismatch] = useState(false);
  const setPasswordMutation = useMutation(
    trpc.auth.setPassword.mutationOptions({
      onSuccess: async () => {
        setCurrent("");
        setPassword("");
        setRepeat("");
        await queryClient.invalidateQueries({ queryKey: trpc.auth.me.queryKey() });
        onDone?.();
      },
    }),
  );
  const errors = fieldErrorsOf(setPasswordMutation.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (password !== repeat) return setMismatch(true);
    setMismatch(false);
    setPasswordMutation.mutate({ password, ...(needsCurrent ? { current_password: current } : {}) });
  };
  return (
    <form onSubmit={submit} aria-label={needsCurrent ? "Change password" : "Choose a password"}>
      {needsCurrent ? (
        <Field label="Current password" errors={errors.current_password}>
          {(p) => <input {...p} type="password" autoComplete="current-password" required value={current} onChange={(e) => setCurrent(e.target.value)} />}
        </Field>
      ) : null}
      <Field label="New password" errors={errors.password} hint="At least 10 characters.">
        {(p) => <input {...p} type="password" autoComplete="new-password" required minLength={10} value={password} onChange={(e) => setPassword(e.target.value)} />}
      </Field>
      <Field label="Repeat the new password" errors={mismatch ? ["The passwords do not match."] : undefined}>
        {(p) => <input {...p} type="password" autoComplete="new-password" required value={repeat} onChange={(e) => setRepeat(e.target.value)} />}
      </Field>
      {setPasswordMutation.isSuccess ? <p role="status">Password saved.</p> : null}
      <button type="submit" disabled={setPasswordMutation.isPending}>
        Save password
      </button>
    </form>
  );
}

/** After a sign-in with an API key: the user chooses a password before anything else. */
export function SetPasswordScreen({ me }: { me: Me }) {
  return (
    <main id="main" className="center">
      <section className="card narrow" aria-labelledby="set-password-title">
        <h1 id="set-password-title">Choose a password</h1>
        <p>
          You signed in with an API key as <strong>{me.email}</strong>. From now on, sign in with this email and a password.
        </p>
        <PasswordForm needsCurrent={false} />
      </section>
    </main>
  );
}
