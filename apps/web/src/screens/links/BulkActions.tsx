import { useMutation, useQueryClient } from "@tanstack/react-query";
import { messageOf, useTRPC } from "../../trpc.ts";
import { ErrorBanner } from "../../ui.tsx";

/** Disable, enable or delete the selected links together (CONTRACT §17: at most 100, all or nothing). */
export function BulkActions({ selected }: { selected: ReadonlySet<number> }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.links.pathKey() });
  const bulkDelete = useMutation(trpc.links.bulkDelete.mutationOptions({ onSuccess: refresh }));
  const bulkUpdate = useMutation(trpc.links.bulkUpdate.mutationOptions({ onSuccess: refresh }));
  const error = bulkDelete.error ?? bulkUpdate.error;
  const ids = [...selected];
  const count = selected.size;
  return (
    <>
      <div className="bulk" role="region" aria-label="Bulk actions">
        <span aria-live="polite">{count ? `${count} selected` : "Select links for bulk actions"}</span>
        <button type="button" disabled={!count || bulkUpdate.isPending} onClick={() => bulkUpdate.mutate({ ids, disabled: 1 })}>
          Disable
        </button>
        <button type="button" disabled={!count || bulkUpdate.isPending} onClick={() => bulkUpdate.mutate({ ids, disabled: 0 })}>
          Enable
        </button>
        <button
          type="button"
          className="danger"
          disabled={!count || bulkDelete.isPending}
          onClick={() => {
            if (window.confirm(`Delete ${count} link${count === 1 ? "" : "s"}? This cannot be undone.`)) bulkDelete.mutate({ ids });
          }}
        >
          Delete
        </button>
      </div>
      <ErrorBanner message={error ? messageOf(error) : null} />
    </>
  );
}
