import { openDb, queryRows, sql } from "@shortener/db";
import { commonTrigrams } from "../src/links/search.ts";
const database = await openDb({ url: process.argv[2]! });
console.log(await queryRows(database.db, sql`select statistics_name, tablename, schemaname, current_schema() cs, array_length(most_common_elems::text::text[],1) n from pg_stats_ext_exprs`));
try {
  const rows = await queryRows<any>(database.db, sql`select most_common_elems::text::text[] as elems, most_common_elem_freqs as freqs from pg_stats_ext_exprs where schemaname = current_schema() and tablename = 'links' and statistics_name = ${"links_url_trgm_stats"}`);
  console.log(typeof rows[0]?.elems, Array.isArray(rows[0]?.elems), rows[0]?.elems?.slice?.(0, 3), rows[0]?.freqs?.slice?.(0, 3));
} catch (e) { console.error("ERR", e); }
console.log((await commonTrigrams(database.db, "url")).size);
await database.close();
