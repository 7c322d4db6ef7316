import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { lazy, Suspense, useState } from "react";
import { Link, useNavigate } from "react-router";
import { LINK_STATUS_NAMES } from "@shortener/vocabulary";
import { messageOf, useTRPC } from "../trpc.ts";
import { copyText, ErrorBanner } from "../ui.tsx";
import { useCan } from "../workspace.ts";
import { HEALTH_NAMES } from "./links/link-filters.ts";

// One link's analytics is its own chunk (with the analytics screen's parts), loaded with this screen.
const LinkAnalytics = lazy(() => import("../analytics/LinkAnalytics.tsx").then((m) => ({ default: m.LinkAnalytics })));

/** A link: its facts, its QR code (preview and downloads), and its analytics (humans, unique visitors, bots, every breakdown). */
export function LinkDetailScreen({ id }: { id: number }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const canEdit = useCan("editor");
  const [copied, setCopied] = useState(false);
  const link = useQuery(trpc.links.get.queryOptions({ id }));
  const qr = useQuery(trpc.links.qr.queryOptions({ id, format: "svg", size: 256 }));
  const navigate = useNavigate();
  const remove = useMutation(
    trpc.links.delete.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.links.pathKey() });
        navigate("/");
      },
    }),
  );

  const downloadPng = async () => {
    const png = await queryClient.fetchQuery(trpc.links.qr.queryOptions({ id, format: "png", size: 1024 }));
    const a = document.createElement("a");
    a.href = `data:image/png;base64,${png.data}`;
    a.download = `qr-${link.data?.alias ?? id}.png`;
    a.click();
  };

  if (link.isError) return <ErrorBanner message={messageOf(link.error)} />;
  if (!link.data) return <p aria-live="polite">Loading…</p>;
  const l = link.data;
  const svgUrl = qr.data ? `data:image/svg+xml;charset=utf-8,${encodeURIComponent(qr.data.data)}` : undefined;

  return (
    <section aria-labelledby="link-title">
      <div className="title-row">
        <h1 id="link-title">{l.title ?? l.alias}</h1>
        {canEdit ? (
          <div className="actions">
            <Link to={`/links/${id}/edit`} className="button">
              Edit
            </Link>
            <button type="button" className="danger" onClick={() => window.confirm("Delete this link?") && remove.mutate({ id })}>
              Delete
            </button>
          </div>
        ) : null}
      </div>
      <ErrorBanner message={remove.error ? messageOf(remove.error) : null} />
      <div className="detail">
        <dl className="facts">
          <dt>Short URL</dt>
          <dd>
            <a href={l.short_url}>{l.short_url}</a>{" "}
            <button type="button" className="ghost" onClick={() => void copyText(l.short_url).then(setCopied)}>
              {copied ? "Copied" : "Copy"}
            </button>
          </dd>
          <dt>Destination</dt>
          <dd className="url">{l.url}</dd>
          <dt>Status</dt>
          <dd>
            <span className={`badge status-${l.status}`}>{LINK_STATUS_NAMES[l.status]}</span>
          </dd>
          <dt>Destination health</dt>
          <dd data-testid="health">
            {HEALTH_NAMES[l.health]}
            {l.health_reason ? ` (${l.health_reason})` : ""}
            {l.health_checked_at ? `, checked ${new Date(l.health_checked_at).toLocaleString()}` : ""}
          </dd>
          <dt>Clicks</dt>
          <dd data-testid="clicks">{l.clicks}</dd>
          <dt>Targeting</dt>
          <dd>
            {l.country_target?.map((t) => `${t.key} → ${t.value}`).join(", ") ??
              l.platform_target?.map((t) => `${t.key} → ${t.value}`).join(", ") ??
              l.language_target?.map((t) => `${t.key} → ${t.value}`).join(", ") ??
              l.rotation_target?.map((t) => t.value).join(", ") ??
              "None"}
          </dd>
          <dt>Expires</dt>
          <dd>
            {l.ends_at ? `${l.expiration_date} ${l.expiration_time} UTC` : "Never"}
            {l.expiration_clicks ? ` · after ${l.expiration_clicks} clicks` : ""}
          </dd>
          <dt>Password</dt>
          <dd>{l.password ? "Yes" : "No"}</dd>
          <dt>Created</dt>
          <dd>{new Date(l.created_at).toLocaleString()}</dd>
        </dl>
        <figure className="qr">
          {svgUrl ? <img src={svgUrl} width={192} height={192} alt={`QR code for ${l.short_url}`} /> : <p>Loading QR code…</p>}
          <figcaption>
            {svgUrl ? (
              <a href={svgUrl} download={`qr-${l.alias}.svg`}>
                Download SVG
              </a>
            ) : null}{" "}
            <button type="button" className="ghost" onClick={() => void downloadPng()}>
              Download PNG
            </button>
          </figcaption>
        </figure>
      </div>
      <Suspense fallback={<p aria-live="polite">Loading analytics…</p>}>
        <LinkAnalytics id={id} />
      </Suspense>
      <p>
        <a href={`/stats/${id}`}>Public stats page</a>
      </p>
    </section>
  );
}
