import { and, ilike, sql, type SQL } from "drizzle-orm";
import { escapeLike, links, queryRows, type Db } from "@shortener/db";

export const SEARCH_COLUMNS = { title: links.title, alias: links.alias, url: links.url } as const;
export type SearchColumn = keyof typeof SEARCH_COLUMNS;

/** A trigram in as many rows as this share (or more) costs a trigram index more than it filters out. */
export const COMMON_TRIGRAM_SHARE = 0.05;

/**
 * Trigram → the share of rows that contain it, for a column's most common trigrams (PostgreSQL's
 * statistics on `show_trgm(column)`, see migration 0008). A trigram not listed is rarer than all listed.
 */
export type TrigramShares = ReadonlyMap<string, number>;

/**
 * CONTRACT §5 search: `column` contains `term`, case-insensitively (ILIKE semantics: both sides
 * lower-cased). The trigram index answers `column ILIKE '%term%'` by intersecting the row lists of
 * every trigram of the term, and a trigram that most rows contain has a row list as long as the
 * table: a term such as `example-1234.test` among a million `https://example-N.test/…` URLs costs
 * ~3,000 index pages to find 200 rows. So when the column's statistics show that some trigrams of the
 * term are common, the index is asked only for the term's rarer parts (`ILIKE '%-1234.%'`: every match
 * of the whole term contains them), and the whole term is checked on those candidates by `strpos`,
 * which the planner cannot send to the index. Without statistics, or when nothing would be left out,
 * it is the plain ILIKE.
 */
export async function searchCondition(db: Db, column: SearchColumn, term: string): Promise<SQL | undefined> {
  return searchConditionWith(column, term, await commonTrigrams(db, column));
}

/** `searchCondition` with the trigram shares given. */
export function searchConditionWith(column: SearchColumn, term: string, shares: TrigramShares): SQL | undefined {
  const col = SEARCH_COLUMNS[column];
  const pieces = indexedPieces(term, shares);
  if (!pieces) return ilike(col, `%${escapeLike(term)}%`);
  return and(...pieces.map((piece) => ilike(col, `%${escapeLike(piece)}%`)), sql`strpos(lower(${col}), lower(${term})) > 0`);
}

type Trigram = { text: string; from: number; to: number };

/** Letters and digits: what pg_trgm takes words from (every other character separates words). */
const WORD_CHAR = /[\p{L}\p{N}]/u;

/**
 * The trigrams pg_trgm extracts from the pattern `%term%`, each with the span of `term` (code units,
 * inclusive) it comes from. A word is padded with two spaces in front when a separator precedes it in
 * the term and one space behind when one follows it; a padding space maps to that separator.
 */
export function patternTrigrams(term: string): Trigram[] {
  const chars = Array.from(term);
  const starts: number[] = [];
  let at = 0;
  for (const c of chars) {
    starts.push(at);
    at += c.length;
  }
  const isWord = chars.map((c) => WORD_CHAR.test(c));
  const out: Trigram[] = [];
  for (let i = 0; i < chars.length;) {
    if (!isWord[i]) {
      i++;
      continue;
    }
    let j = i;
    while (j < chars.length && isWord[j]) j++;
    // chars[i..j-1] is a word; a separator before / after it makes pg_trgm pad that side.
    const padded: Array<{ c: string; pos: number }> = [];
    if (i > 0) padded.push({ c: " ", pos: i - 1 }, { c: " ", pos: i - 1 });
    for (let k = i; k < j; k++) padded.push({ c: (chars[k] as string).toLowerCase(), pos: k });
    if (j < chars.length) padded.push({ c: " ", pos: j });
    for (let k = 0; k + 3 <= padded.length; k++) {
      const [a, b, c] = [padded[k], padded[k + 1], padded[k + 2]] as [{ c: string; pos: number }, { c: string; pos: number }, { c: string; pos: number }];
      const last = chars[c.pos] as string;
      out.push({ text: a.c + b.c + c.c, from: starts[a.pos] as number, to: (starts[c.pos] as number) + last.length - 1 });
    }
    i = j;
  }
  return out;
}

/**
 * The parts of `term` to ask the trigram index for: the runs of consecutive trigrams that are not
 * common, as substrings of the term. `undefined` when the index should get the whole term: no
 * statistics, no common trigram in the term, or nothing rare left to search for.
 */
export function indexedPieces(term: string, shares: TrigramShares): string[] | undefined {
  if (!shares.size) return undefined;
  const trigrams = patternTrigrams(term);
  const isCommon = (t: Trigram) => (shares.get(t.text) ?? 0) >= COMMON_TRIGRAM_SHARE;
  if (!trigrams.some(isCommon)) return undefined;
  const pieces = new Set<string>();
  let run: Trigram[] = [];
  const flush = () => {
    // A piece that starts at a separator makes pg_trgm pad the word in front ("  1", " 12"): when the
    // first of those is common (so not in the run), start the piece at the word and leave both out.
    if (run[0]?.text.startsWith(" ") && !run[0].text.startsWith("  ")) run.shift();
    const first = run[0];
    const last = run[run.length - 1];
    if (first && last) pieces.add(term.slice(first.from, last.to + 1));
    run = [];
  };
  let previous: Trigram | undefined;
  for (const t of trigrams) {
    // A run is trigrams that overlap (one word) or share a separator (two words joined by one character).
    const isAdjacent = previous !== undefined && t.from <= previous.to;
    if (!isAdjacent || isCommon(t)) flush();
    if (!isCommon(t)) run.push(t);
    previous = t;
  }
  flush();
  return pieces.size ? [...pieces] : undefined;
}

const STATS_TTL_MS = 10 * 60_000;
const cache = new WeakMap<Db, Map<SearchColumn, { at: number; shares: Promise<TrigramShares> }>>();

/**
 * The most common trigrams of a column, from the statistics ANALYZE keeps on `show_trgm(column)`;
 * cached per database handle for ten minutes (they change only as fast as the table's make-up).
 * Empty when there are none (never analysed, or not visible to this role).
 */
export function commonTrigrams(db: Db, column: SearchColumn, now = Date.now()): Promise<TrigramShares> {
  let byColumn = cache.get(db);
  if (!byColumn) cache.set(db, (byColumn = new Map()));
  const hit = byColumn.get(column);
  if (hit && now - hit.at < STATS_TTL_MS) return hit.shares;
  const shares = readTrigramShares(db, column).catch(() => new Map<string, number>());
  byColumn.set(column, { at: now, shares });
  return shares;
}

async function readTrigramShares(db: Db, column: SearchColumn): Promise<TrigramShares> {
  const rows = await queryRows<{ elems: string[] | null; freqs: number[] | null }>(
    db,
    sql`select most_common_elems::text::text[] as elems, most_common_elem_freqs as freqs
        from pg_stats_ext_exprs
        where schemaname = current_schema() and tablename = 'links' and statistics_name = ${`links_${column}_trgm_stats`}`,
  );
  const shares = new Map<string, number>();
  const { elems, freqs } = rows[0] ?? {};
  if (!elems || !freqs) return shares;
  // The frequencies list has three more entries than the elements (minimum, maximum, empty share).
  elems.forEach((e, i) => {
    const share = freqs[i];
    if (share !== undefined && share >= COMMON_TRIGRAM_SHARE) shares.set(e, Number(share));
  });
  return shares;
}
