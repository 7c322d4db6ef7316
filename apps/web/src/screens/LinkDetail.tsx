import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useNavigate } from "react-router";
import { LINK_STATUS_NAMES } from "@shortener/vocabulary";
import { messageOf, useTRPC } from "../trpc.ts";
import { copyText, ErrorBanner } from "../ui.tsx";

const day = (d: Date) => d.toISOString().slice(0, 10);

function Bars({ title, rows }: { title: string; rows: Array<{ value: string; count: number }> }) {
  const max = Math.max(1, ...rows.map((r) => r.count));
  return (
    <figure className="bars">
      <figcaption>{title}</figcaption>
      {rows.length === 0 ? <p className="muted">No clicks yet.</p> : null}
      <table>
        <tbody>
          {rows.map((r) => (
            <tr key={r.value}>
              <th scope="row">{r.value}</th>
              <td>
                <span className="bar" style={{ width: `${(r.count / max) * 100}%` }} />
              </td>
              <td className="num">{r.count}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}

/** A link: its facts, its statistics of the last 30 days, and its QR code (preview and downloads). */
export function LinkDetailScreen({ id }: { id: number }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [copied, setCopied] = useState(false);
  const to = new Date();
  const from = new Date(to.getTime() - 29 * 86_400_000);
  const range = { from: day(from), to: day(to) };
  const link = useQuery(trpc.links.get.queryOptions({ id }));
  const daily = useQuery(trpc.stats.get.queryOptions({ link_id: id, name: "clicks", ...range }));
  const countries = useQuery(trpc.stats.get.queryOptions({ link_id: id, name: "country", ...range }));
  const platforms = useQuery(trpc.stats.get.queryOptions({ link_id: id, name: "platform", ...range }));
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
  const dailyRows = (daily.data?.data ?? []).map((r) => ({ value: r.value.slice(5), count: r.count }));

  return (
    <section aria-labelledby="link-title">
      <div className="title-row">
        <h1 id="link-title">{l.title ?? l.alias}</h1>
        <div className="actions">
          <Link to={`/links/${id}/edit`} className="button">
            Edit
          </Link>
          <button type="button" className="danger" onClick={() => window.confirm("Delete this link?") && remove.mutate({ id })}>
            Delete
          </button>
        </div>
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
      <h2>Last 30 days</h2>
      <div className="stats">
        <Bars title="Clicks per day" rows={dailyRows.filter((r, i) => r.count > 0 || i >= dailyRows.length - 7)} />
        <Bars title="Countries" rows={countries.data?.data ?? []} />
        <Bars title="Platforms" rows={platforms.data?.data ?? []} />
      </div>
      <p>
        <a href={`/stats/${id}`}>Public stats page</a>
      </p>
    </section>
  );
}
