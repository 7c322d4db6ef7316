import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * One full garbage collection once the service has started. Starting leaves tens of megabytes of garbage
 * (module sources, migrations, the GeoIP file turned into typed arrays, PGlite's start) in a heap that no
 * major collection has visited yet, so V8 keeps it, and the semi-spaces grown during the start, until
 * traffic makes it collect: an idle process would hold them for hours. A collection of a freshly
 * started heap takes a few milliseconds (docs/adr/0030-memory-at-rest.md).
 */
export function settleMemory(): void {
  // Node documents this switch for exactly this use; the flag is turned off again at once, so no
  // `gc` global is left in the service's own context.
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  setFlagsFromString("--no-expose-gc");
  gc();
}
