import { and, asc, count, desc, eq, ilike, type AnyColumn, type SQL } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import { escapeLike, type Db } from "@shortener/db";
import { offsetOf, type Page } from "./pagination.ts";

/** One page of a user's rows of a simple table: optional substring search, a sort column, ties by id. */
export async function listOwnedRows<Row>(options: {
  db: Db;
  table: PgTable;
  select: Record<string, PgColumn>;
  workspaceId: number;
  workspaceColumn: PgColumn;
  idColumn: PgColumn;
  search?: { column: AnyColumn; term: string | undefined };
  sortColumn: AnyColumn;
  sort: "asc" | "desc";
  page: number;
  perPage: number;
  extraWhere?: SQL;
}): Promise<Page<Row>> {
  const { db, table, workspaceId, workspaceColumn, idColumn, search, sortColumn, sort, page, perPage } = options;
  const where = and(eq(workspaceColumn, workspaceId), search?.term ? ilike(search.column, `%${escapeLike(search.term)}%`) : undefined, options.extraWhere);
  const order = sort === "asc" ? asc : desc;
  const [data, totals] = await Promise.all([
    db.select(options.select).from(table).where(where).orderBy(order(sortColumn), order(idColumn)).limit(perPage).offset(offsetOf(page, perPage)),
    db.select({ n: count() }).from(table).where(where),
  ]);
  return { data: data as Row[], total: totals[0]?.n ?? 0, page, perPage };
}
