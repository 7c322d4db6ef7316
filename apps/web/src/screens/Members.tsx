import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { fieldErrorsOf, messageOf, useTRPC, type Me, type Outputs } from "../trpc.ts";
import { ErrorBanner, Field, formatMoment, Pager, SecretOnce } from "../ui.tsx";
import { hasRole, useWorkspace, useWorkspaceChanged, withArticle, WORKSPACE_ROLES, type Workspace, type WorkspaceRole } from "../workspace.ts";

type Member = Outputs["workspaces"]["members"]["list"]["data"][number];
type Issued = Outputs["workspaces"]["invitations"]["create"];

/** The roles someone may hand out: at most their own (CONTRACT §24); owners every one. */
const rolesUpTo = (role: WorkspaceRole) => WORKSPACE_ROLES.filter((r) => hasRole(role, r));

/**
 * The workspace acted in (CONTRACT §24, docs/teams.md): its members with their roles — admins change
 * roles and remove members, owners hand the workspace over (make another member owner), anyone leaves
 * (the last owner cannot: the API's message shows) — then, for admins, its one-time invitation links and
 * its settings (name, single sign-on), and for owners, deleting it. Every change asks first. Screens of
 * other roles show the list only; the server judges every call whatever the screen shows.
 */
export function MembersScreen({ me }: { me: Me }) {
  const workspace = useWorkspace();
  if (!workspace) return <p aria-live="polite">Loading…</p>;
  // A new workspace (switched to) starts this screen afresh: forms, the link shown once, pages.
  return <WorkspaceMembers key={workspace.id} me={me} workspace={workspace} />;
}

function WorkspaceMembers({ me, workspace }: { me: Me; workspace: Workspace }) {
  const isAdmin = hasRole(workspace.role, "admin");
  return (
    <section aria-labelledby="members-title">
      <h1 id="members-title">Members</h1>
      <p className="muted">
        Workspace <strong>{workspace.name}</strong>
        {workspace.personal ? " (your personal workspace)" : ""}: you are {withArticle(workspace.role)}.{isAdmin ? null : " Admins and owners manage its members, invitations and settings."}
      </p>
      <MemberList me={me} workspace={workspace} />
      {isAdmin ? <Invitations workspace={workspace} /> : null}
      {isAdmin ? <Settings workspace={workspace} /> : null}
    </section>
  );
}

function MemberList({ me, workspace }: { me: Me; workspace: Workspace }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const changed = useWorkspaceChanged();
  const [page, setPage] = useState(1);
  const members = useQuery({ ...trpc.workspaces.members.list.queryOptions({ workspace_id: workspace.id, page, per_page: 50 }), placeholderData: keepPreviousData });
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: trpc.workspaces.members.list.pathKey() });
    // One's own role may be what changed.
    await queryClient.invalidateQueries({ queryKey: trpc.workspaces.current.queryKey() });
  };
  const update = useMutation(trpc.workspaces.members.update.mutationOptions({ onSuccess: refresh }));
  const remove = useMutation(trpc.workspaces.members.remove.mutationOptions({ onSuccess: refresh }));
  // Leaving moves the session back to the personal workspace: everything starts afresh there.
  const leave = useMutation(trpc.workspaces.members.leave.mutationOptions({ onSuccess: () => changed(null) }));
  const error = members.error ?? update.error ?? remove.error ?? leave.error;
  const isAdmin = hasRole(workspace.role, "admin");
  const isOwner = workspace.role === "owner";

  const changeRole = (member: Member, role: WorkspaceRole) => {
    const isSelf = member.id === me.id;
    const question =
      role === "owner"
        ? `Hand over ${workspace.name}: make ${member.name} an owner? Owners can delete the workspace and change other owners. You stay an owner until you change your own role.`
        : isSelf
          ? `Make yourself ${withArticle(role)} of ${workspace.name}? You may not be able to change it back.`
          : `Make ${member.name} ${withArticle(role)} of ${workspace.name}?`;
    if (window.confirm(question)) update.mutate({ workspace_id: workspace.id, user_id: member.id, role });
  };

  return (
    <>
      <h2>People</h2>
      <ErrorBanner message={error ? messageOf(error) : null} />
      <div className="table-wrap">
        <table className="members stack">
          <caption className="visually-hidden">Members of {workspace.name}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Joined</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {members.data?.data.map((m) => {
              const isSelf = m.id === me.id;
              // Admins manage editors and viewers (and admins); owners are changed by owners only.
              const canManage = isAdmin && (isOwner || m.role !== "owner");
              return (
                <tr key={m.id} data-testid="member">
                  <td data-label="Name">
                    {m.name}
                    {isSelf ? <span className="muted"> (you)</span> : null}
                  </td>
                  <td data-label="Email">{m.email}</td>
                  <td data-label="Role">
                    {canManage ? (
                      <select aria-label={`Role of ${m.name}`} value={m.role} disabled={update.isPending} onChange={(e) => changeRole(m, e.target.value as WorkspaceRole)}>
                        {rolesUpTo(workspace.role).map((r) => (
                          <option key={r} value={r}>
                            {r}
                          </option>
                        ))}
                      </select>
                    ) : (
                      <span className="badge role">{m.role}</span>
                    )}
                  </td>
                  <td data-label="Joined">{formatMoment(m.joined_at)}</td>
                  <td>
                    {isSelf ? (
                      workspace.personal ? null : (
                        <button
                          type="button"
                          className="danger ghost"
                          disabled={leave.isPending}
                          onClick={() =>
                            window.confirm(`Leave ${workspace.name}? You lose access to its links at once; an admin must invite you again.`) && leave.mutate({ workspace_id: workspace.id })
                          }
                        >
                          Leave
                        </button>
                      )
                    ) : canManage ? (
                      <button
                        type="button"
                        className="danger ghost"
                        disabled={remove.isPending}
                        aria-label={`Remove ${m.name}`}
                        onClick={() => window.confirm(`Remove ${m.name} from ${workspace.name}? Their API keys for it stop working.`) && remove.mutate({ workspace_id: workspace.id, user_id: m.id })}
                      >
                        Remove
                      </button>
                    ) : null}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <Pager meta={members.data?.meta} page={page} onPage={setPage} label="Pages of members" />
    </>
  );
}

function Invitations({ workspace }: { workspace: Workspace }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [role, setRole] = useState<WorkspaceRole>("editor");
  const [email, setEmail] = useState("");
  const [page, setPage] = useState(1);
  const [issued, setIssued] = useState<Issued | null>(null);
  const invitations = useQuery({ ...trpc.workspaces.invitations.list.queryOptions({ workspace_id: workspace.id, page, per_page: 25 }), placeholderData: keepPreviousData });
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.workspaces.invitations.list.pathKey() });
  const create = useMutation(
    trpc.workspaces.invitations.create.mutationOptions({
      onSuccess: (made) => {
        setIssued(made);
        setEmail("");
        void refresh();
      },
    }),
  );
  const revoke = useMutation(trpc.workspaces.invitations.revoke.mutationOptions({ onSuccess: refresh }));
  const errors = fieldErrorsOf(create.error);
  const otherError = create.error && !Object.keys(errors).length ? messageOf(create.error) : null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setIssued(null);
    create.mutate({ workspace_id: workspace.id, role, ...(email ? { email } : {}) });
  };
  return (
    <>
      <h2>Invitations</h2>
      <form className="card editor" onSubmit={submit} aria-label="Invite someone">
        <p className="muted small">An invitation is a link that works once, for 7 days. With an email, it is mailed too when the service has a mail server (SMTP_URL).</p>
        <div className="row">
          <Field label="Role" errors={errors.role}>
            {(p) => (
              <select {...p} value={role} onChange={(e) => setRole(e.target.value as WorkspaceRole)}>
                {rolesUpTo(workspace.role).map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Email (optional)" errors={errors.email}>
            {(p) => <input {...p} type="email" value={email} maxLength={255} placeholder="ann@example.com" onChange={(e) => setEmail(e.target.value)} />}
          </Field>
        </div>
        <ErrorBanner message={otherError} />
        <button type="submit" disabled={create.isPending}>
          Create invitation
        </button>
      </form>
      {issued ? (
        <SecretOnce
          testId="invitation-link"
          secret={issued.url}
          intro={
            <>
              The invitation link for {withArticle(issued.role)}
              {issued.email ? ` (${issued.email})` : ""}, <strong>shown only now</strong>: copy it and hand it over. It works once, until {formatMoment(issued.expires_at)}.{" "}
              <span data-testid="invitation-mailed">
                {issued.mailed
                  ? `Mailed to ${issued.email ?? ""}.`
                  : issued.email
                    ? "Not mailed (no mail server is set up, or it refused): hand the link over yourself."
                    : "Not mailed: no email was given."}
              </span>
            </>
          }
        />
      ) : null}
      <ErrorBanner message={invitations.error ? messageOf(invitations.error) : revoke.error ? messageOf(revoke.error) : null} />
      <ul className="plain-list invitations">
        {invitations.data?.data.map((i) => (
          <li key={i.id} data-testid="invitation">
            <span className="grow">
              {withArticle(i.role)} {i.email ? <span className="muted">{i.email}</span> : <span className="muted">(a link, no email)</span>}
              <span className="small muted"> · expires {formatMoment(i.expires_at)}</span>
            </span>
            <span className={`badge ${i.status === "pending" ? "status-2" : i.status === "accepted" ? "status-1" : "status-3"}`}>{i.status}</span>
            {i.status === "pending" ? (
              <button
                type="button"
                className="danger ghost"
                disabled={revoke.isPending}
                aria-label={`Revoke the invitation ${i.id}${i.email ? ` for ${i.email}` : ""}`}
                onClick={() => window.confirm("Revoke this invitation? Its link stops working.") && revoke.mutate({ workspace_id: workspace.id, id: i.id })}
              >
                Revoke
              </button>
            ) : null}
          </li>
        ))}
      </ul>
      {invitations.data?.data.length === 0 ? <p className="empty">No invitations yet.</p> : null}
      <Pager meta={invitations.data?.meta} page={page} onPage={setPage} label="Pages of invitations" />
    </>
  );
}

function Settings({ workspace }: { workspace: Workspace }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const changed = useWorkspaceChanged();
  const [name, setName] = useState(workspace.name);
  const saved = async (next: Workspace) => {
    queryClient.setQueryData(trpc.workspaces.current.queryKey(), next);
    await queryClient.invalidateQueries({ queryKey: trpc.workspaces.list.pathKey() });
  };
  const update = useMutation(trpc.workspaces.update.mutationOptions({ onSuccess: saved }));
  // The session falls back to the personal workspace.
  const remove = useMutation(trpc.workspaces.delete.mutationOptions({ onSuccess: () => changed(null) }));
  const errors = fieldErrorsOf(update.error);
  const otherError = update.error && !Object.keys(errors).length ? messageOf(update.error) : remove.error ? messageOf(remove.error) : null;
  const rename = (event: FormEvent) => {
    event.preventDefault();
    if (window.confirm(`Rename the workspace ${workspace.name} to ${name.trim()}?`)) update.mutate({ id: workspace.id, name });
  };
  const toggleSso = (isRequired: boolean) => {
    const question = isRequired
      ? `Require single sign-on in ${workspace.name}? Members signed in with a password can no longer switch to it.`
      : `Stop requiring single sign-on in ${workspace.name}? Members may then use it after a password sign-in.`;
    if (window.confirm(question)) update.mutate({ id: workspace.id, require_sso: isRequired });
  };
  return (
    <>
      <h2>Settings</h2>
      <div className="card editor">
        <form className="inline-form" onSubmit={rename} aria-label="Rename the workspace">
          <Field label="Workspace name" errors={errors.name}>
            {(p) => <input {...p} value={name} required maxLength={100} onChange={(e) => setName(e.target.value)} />}
          </Field>
          <button type="submit" disabled={update.isPending || name.trim() === workspace.name}>
            Rename
          </button>
        </form>
        <label className="check">
          <input type="checkbox" checked={workspace.require_sso} disabled={update.isPending} onChange={(e) => toggleSso(e.target.checked)} />
          Members must sign in with single sign-on
        </label>
        {errors.require_sso ? <p className="error">{errors.require_sso.join(" ")}</p> : null}
        <ErrorBanner message={otherError} />
        {workspace.role === "owner" && !workspace.personal ? (
          <div className="danger-zone">
            <p className="small muted">Deleting the workspace deletes everything it owns: links, domains, spaces, pixels, webhooks, imports, API keys and statistics.</p>
            <button
              type="button"
              className="danger"
              disabled={remove.isPending}
              onClick={() => window.confirm(`Delete the workspace ${workspace.name} and everything it owns? This cannot be undone.`) && remove.mutate({ id: workspace.id })}
            >
              Delete workspace
            </button>
          </div>
        ) : null}
      </div>
    </>
  );
}
