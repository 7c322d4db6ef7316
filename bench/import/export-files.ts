/**
 * The benchmark's links (issue #7's generated rows) written as each service's export file would carry
 * them (issue #31), for `run.ts` (through the CLI) and `formats-cpu.ts` (the reading alone).
 *
 * Why this comparison is fair: every file holds the SAME links — the same url, alias and title per row —
 * and each file is what that service would export for them. The baseline, `csv`, is the plain import
 * file of those links with the columns CONTRACT §12 has for them (url, alias, title; §12 has no date,
 * count or tag column, and a domain column would have to name one of ours). An export file also carries
 * what its service writes beside them (its short URL with the service's domain, ids, dates, counts,
 * empty tag columns), as the fixtures in packages/core/src/testing/export-files/ do: those extra bytes
 * are part of the cost of reading that service's file, so the bench reports each file's bytes per row.
 * The short URL's domain (bit.ly, dub.sh, …) is not one of the importer's, so every row lands on the
 * job's default domain, as the plain CSV's rows do.
 */
export type ExportFileShape = { header: string; line: (i: number, url: string, alias: string, title: string) => string };

/** Link `i` of the benchmark: its url, alias and title. */
export function benchLink(i: number): [string, string, string] {
  return [`https://bench.example/p/${i}?utm_source=list${i % 97}`, `b${i.toString(36)}`, `Benchmark link number ${i}`];
}

export const EXPORT_FILES: Record<string, ExportFileShape> = {
  csv: { header: "url,alias,title", line: (_i, u, a, t) => `${u},${a},${t}` },
  bitly: { header: "id,link,long_url,title,created_at,archived,tags,custom_bitlinks", line: (_i, u, a, t) => `bit.ly/${a},https://bit.ly/${a},${u},${t},2021-03-04T05:06:07+0000,false,,` },
  rebrandly: {
    header: "id,title,slashtag,destination,shortUrl,domain.fullName,createdAt,updatedAt,clicks",
    line: (i, u, a, t) => `r${i},${t},${a},${u},rebrand.ly/${a},rebrand.ly,2016-07-13T10:54:12.000Z,2016-07-13T10:54:12.000Z,${i % 50}`,
  },
  shortio: { header: "Original URL,Short URL,Path,Title,Tags,Created At", line: (_i, u, a, t) => `${u},https://short.gy/${a},${a},${t},,2022-01-02T03:04:05.000Z` },
  // Dub's export has the columns the user ticks: with `title` ticked, so the links are the same as the others'.
  dub: { header: "link,url,title,clicks,createdAt,tags", line: (i, u, a, t) => `https://dub.sh/${a},${u},${t},${i % 50},2024-02-03T04:05:06.000Z,` },
  shlink: { header: "createdAt,domain,shortCode,shortUrl,longUrl,title,tags,visits", line: (i, u, a, t) => `2023-04-05T06:07:08+00:00,s.test,${a},https://s.test/${a},${u},${t},,${i % 50}` },
  yourls: { header: "keyword,url,title,timestamp,ip,clicks", line: (i, u, a, t) => `${a},${u},${t},2020-01-02 03:04:05,127.0.0.1,${i % 50}` },
  kutt: { header: "id,address,description,banned,domain_id,password,expire_in,target,visit_count,created_at", line: (i, u, a, t) => `${i},${a},${t},f,,,,${u},${i % 50},2022-05-06 07:08:09.123+00` },
  phpshort: { header: "id,alias,url,short_url,title,disabled,password,clicks,created_at", line: (i, u, a, t) => `${i},${a},${u},https://old.test/${a},${t},0,0,${i % 50},2021-09-10T11:12:13.000Z` },
};

/** Rows `from` to `to` (exclusive) of a format's file, as text. */
export function exportFileChunk(format: string, from: number, to: number): string {
  const { line } = EXPORT_FILES[format] as ExportFileShape;
  let chunk = "";
  for (let j = from; j < to; j++) chunk += `${line(j, ...benchLink(j))}\n`;
  return chunk;
}
