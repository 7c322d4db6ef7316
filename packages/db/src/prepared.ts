import type { Db } from "./client.ts";

const cache = new WeakMap<Db, Map<string, unknown>>();

/**
 * A drizzle query built once per database handle and run as a prepared statement: drizzle does not
 * rebuild its SQL, and postgres.js parses it once per connection and then sends only Bind/Execute (one
 * round trip instead of two for a statement with parameters). For hot queries of a fixed shape whose
 * varying values are `sql.placeholder`s; `name` must identify that shape. A transaction is its own
 * handle, so its queries run on its connection.
 */
export function preparedFor<P>(db: Db, name: string, build: () => { prepare(name: string): P }): P {
  let byName = cache.get(db);
  if (!byName) cache.set(db, (byName = new Map()));
  let query = byName.get(name) as P | undefined;
  if (query === undefined) byName.set(name, (query = build().prepare(name)));
  return query;
}
