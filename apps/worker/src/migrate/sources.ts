import { createBitlySource } from "./bitly.ts";
import { createDubSource } from "./dub.ts";
import { createKuttSource } from "./kutt.ts";
import { createPhpShortSource } from "./phpshort.ts";
import { createShlinkSource } from "./shlink.ts";
import type { Source, SourceOptions } from "./source.ts";
import { createYourlsSource } from "./yourls.ts";

/** The live sources of `importer migrate --from <name>` (CONTRACT §23), each made by its factory. */
export const SOURCES: Record<string, (options: SourceOptions) => Source> = {
  phpshort: createPhpShortSource,
  shlink: createShlinkSource,
  yourls: createYourlsSource,
  kutt: createKuttSource,
  dub: createDubSource,
  bitly: createBitlySource,
};
