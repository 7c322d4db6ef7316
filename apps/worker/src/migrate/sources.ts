import { createPhpShortSource } from "./phpshort.ts";
import type { Source, SourceOptions } from "./source.ts";

/** The live sources of `importer migrate --from <name>` (CONTRACT §23), each made by its factory. */
export const SOURCES: Record<string, (options: SourceOptions) => Source> = {
  phpshort: createPhpShortSource,
};
