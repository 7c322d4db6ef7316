import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useNavigate } from "react-router";
import { deviceOf } from "../device.ts";
import { messageOf, setCsrfToken, useTRPC, type Me } from "../trpc.ts";
import { ErrorBanner, formatMoment, SecretOnce } from "../ui.tsx";
import { PasswordForm } from "./SignIn.tsx";

export function AccountScreen({ me }: { me: Me }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const signedOut = async () => {
    setCsrfToken(null);
    queryClient.clear();
    navigate("/", { replace: true });
    await queryClient.invalidateQueries();
  };
  const everywhere = useMutation(trpc.auth.logoutEverywhere.mutationOptions({ onSuccess: signedOut }));
  const sessions = useQuery(trpc.auth.sessions.queryOptions());
  // A new key of the account (§9), shown once; the old one and the sessions it opened stop (docs/adr/0033-session-bounds.md).
  const rotate = useMutation(trpc.account.rotateKey.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.auth.sessions.queryKey() }) }));
  const revoke = useMutation(
    trpc.auth.revokeSession.mutationOptions({
      onSuccess: async (_, { id }) => {
        if (sessions.data?.find((s) => s.id === id)?.current) return signedOut();
        await queryClient.invalidateQueries({ queryKey: trpc.auth.sessions.queryKey() });
      },
    }),
  );
  return (
    <section aria-labelledby="account-title">
      <h1 id="account-title">Account</h1>
      <dl className="facts">
        <dt>Name</dt>
        <dd>{me.name}</dd>
        <dt>Email</dt>
        <dd>{me.email}</dd>
        <dt>Role</dt>
        <dd>{me.role}</dd>
      </dl>
      <h2>Password</h2>
      <PasswordForm needsCurrent={true} />
      <h2>API key</h2>
      <p>Your account's own API key has every scope. Rotating it shows a new key once; the old one stops working at once, for scripts and for browsers signed in with it.</p>
      <ErrorBanner message={rotate.error ? messageOf(rotate.error) : null} />
      {rotate.data ? <SecretOnce testId="rotated-key" secret={rotate.data.api_key} intro="Your new API key, shown only now. Store it somewhere safe." /> : null}
      <button type="button" className="danger" onClick={() => window.confirm("Rotate your API key? The current one stops working at once.") && rotate.mutate()} disabled={rotate.isPending}>
        Rotate API key
      </button>
      <h2>Sessions</h2>
      <p>The browsers signed in to your account. Signing one out takes effect on its next request; API keys keep working.</p>
      <ErrorBanner message={sessions.error ? messageOf(sessions.error) : revoke.error ? messageOf(revoke.error) : everywhere.error?.message} />
      <div className="table-wrap">
        <table className="sessions stack">
          <thead>
            <tr>
              <th scope="col">Device</th>
              <th scope="col">Signed in</th>
              <th scope="col">Last active</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {sessions.data?.map((s) => (
              <tr key={s.id} data-testid={s.current ? "session-current" : "session"}>
                <td data-label="Device">
                  <span title={s.user_agent ?? undefined}>{deviceOf(s.user_agent)}</span>
                  {s.current ? <span className="badge session-badge">this browser</span> : null}
                </td>
                <td data-label="Signed in">{formatMoment(s.created_at)}</td>
                <td data-label="Last active">{formatMoment(s.last_seen_at)}</td>
                <td>
                  <button
                    type="button"
                    className="danger ghost"
                    onClick={() => revoke.mutate({ id: s.id })}
                    disabled={revoke.isPending}
                    aria-label={s.current ? "Sign out this browser" : `Sign out ${deviceOf(s.user_agent)}, last active ${formatMoment(s.last_seen_at)}`}
                  >
                    Sign out
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p>Or sign this browser and every other one out at once.</p>
      <button type="button" className="danger" onClick={() => everywhere.mutate()} disabled={everywhere.isPending}>
        Sign out everywhere
      </button>
    </section>
  );
}
