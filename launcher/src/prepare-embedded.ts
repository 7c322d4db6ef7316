// The child process of `prepareEmbeddedInChild`: creates and migrates the embedded database in the
// data folder given as its argument, then exits.
import { prepareEmbedded } from "./embedded.ts";

const dataDir = process.argv[2];
if (!dataDir) throw new Error("usage: prepare-embedded <data folder>");
await prepareEmbedded(dataDir);
