import { useMutation, useQuery } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import { fieldErrorsOf, messageOf, useTRPC } from "./trpc.ts";
import { ErrorBanner, Field } from "./ui.tsx";
import { useWorkspace, useWorkspaceChanged } from "./workspace.ts";

/**
 * The workspace the session acts in, in the top bar (and in the phone menu): its name and the user's
 * role. With a password session, a button opens the user's workspaces (choosing one switches the
 * session and starts every screen's data afresh) and "New workspace" (created, then switched to). A
 * session opened with an API key stays in the key's workspace (CONTRACT §24): the name only, no menu.
 * Escape closes the list and gives the focus back to the button; so does a tap outside it.
 */
export function WorkspaceSwitcher({ canSwitch }: { canSwitch: boolean }) {
  const workspace = useWorkspace();
  const [isOpen, setOpen] = useState(false);
  const id = useId();
  const button = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!isOpen) return;
    const onPointer = (e: PointerEvent) => {
      const target = e.target as Node;
      if (!panel.current?.contains(target) && !button.current?.contains(target)) setOpen(false);
    };
    document.addEventListener("pointerdown", onPointer);
    return () => document.removeEventListener("pointerdown", onPointer);
  }, [isOpen]);

  if (!workspace) return <span className="workspace-current muted">Workspace…</span>;
  const label = (
    <>
      <span className="workspace-name">{workspace.name}</span> <span className="badge role">{workspace.role}</span>
    </>
  );
  if (!canSwitch) {
    return (
      <span className="workspace-current" data-testid="workspace-current" title="A session opened with an API key stays in the key's workspace.">
        <span className="visually-hidden">Workspace: </span>
        {label}
      </span>
    );
  }
  const close = () => {
    setOpen(false);
    button.current?.focus();
  };
  // Escape closes this list only, not the phone menu it may sit in.
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== "Escape" || !isOpen) return;
    e.stopPropagation();
    close();
  };
  return (
    <div className="workspace-switcher" onKeyDown={onKeyDown}>
      <button
        ref={button}
        type="button"
        className="ghost workspace-button"
        aria-expanded={isOpen}
        aria-controls={`${id}-workspaces`}
        aria-label={`Workspace: ${workspace.name}, ${workspace.role}. Switch workspace`}
        data-testid="workspace-current"
        onClick={() => setOpen((open) => !open)}
      >
        {label}
        <span aria-hidden="true" className="chevron" />
      </button>
      {isOpen ? (
        <div ref={panel} id={`${id}-workspaces`} className="workspace-panel card">
          <WorkspaceList currentId={workspace.id} onDone={close} />
        </div>
      ) : null}
    </div>
  );
}

function WorkspaceList({ currentId, onDone }: { currentId: number; onDone: () => void }) {
  const trpc = useTRPC();
  const changed = useWorkspaceChanged();
  const [name, setName] = useState("");
  const list = useQuery(trpc.workspaces.list.queryOptions({ per_page: 100 }));
  // Opening puts the focus on the current workspace, once the list is there.
  const items = useRef<HTMLUListElement>(null);
  const isListed = list.data !== undefined;
  useEffect(() => {
    if (isListed) (items.current?.querySelector<HTMLElement>("[aria-current='true']") ?? items.current?.querySelector<HTMLElement>("button"))?.focus();
  }, [isListed]);
  const switched = async (workspace: Parameters<typeof changed>[0]) => {
    const refetched = changed(workspace);
    onDone();
    await refetched;
  };
  const doSwitch = useMutation(trpc.workspaces.switch.mutationOptions({ onSuccess: switched }));
  const create = useMutation(trpc.workspaces.create.mutationOptions({ onSuccess: (made) => doSwitch.mutate({ id: made.id }) }));
  const errors = fieldErrorsOf(create.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ name });
  };
  const error = list.error ?? doSwitch.error ?? (create.error && !errors.name ? create.error : null);
  return (
    <>
      <h2 className="small-heading">Your workspaces</h2>
      <ErrorBanner message={error ? messageOf(error) : null} />
      {list.isPending ? <p aria-live="polite">Loading…</p> : null}
      <ul ref={items} className="workspace-list">
        {list.data?.data.map((w) => (
          <li key={w.id}>
            <button
              type="button"
              className="ghost"
              aria-current={w.id === currentId ? "true" : undefined}
              disabled={doSwitch.isPending}
              onClick={() => (w.id === currentId ? onDone() : doSwitch.mutate({ id: w.id }))}
            >
              <span className="grow">{w.name}</span> <span className="badge role">{w.personal ? `personal · ${w.role}` : w.role}</span>
            </button>
          </li>
        ))}
      </ul>
      <form onSubmit={submit} aria-label="Create a workspace" className="workspace-new">
        <Field label="New workspace" errors={errors.name}>
          {(p) => <input {...p} value={name} required maxLength={100} placeholder="Marketing team" onChange={(e) => setName(e.target.value)} />}
        </Field>
        <button type="submit" disabled={create.isPending || doSwitch.isPending}>
          Create and switch
        </button>
      </form>
    </>
  );
}
