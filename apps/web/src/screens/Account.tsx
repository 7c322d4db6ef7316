import { useMutation, useQueryClient } from "@tanstack/react-query";
import { navigate } from "../router.tsx";
import { setCsrfToken, useTRPC, type Me } from "../trpc.ts";
import { ErrorBanner } from "../ui.tsx";
import { PasswordForm } from "./SignIn.tsx";

export function AccountScreen({ me }: { me: Me }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const everywhere = useMutation(
    trpc.auth.logoutEverywhere.mutationOptions({
      onSuccess: async () => {
        setCsrfToken(null);
        queryClient.clear();
        navigate("/", { replace: true });
        await queryClient.invalidateQueries();
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
      <h2>Sessions</h2>
      <p>Signs this browser and every other one out. API keys keep working.</p>
      <ErrorBanner message={everywhere.error?.message} />
      <button type="button" className="danger" onClick={() => everywhere.mutate()} disabled={everywhere.isPending}>
        Sign out everywhere
      </button>
    </section>
  );
}
