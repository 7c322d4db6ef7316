import { pixels } from "@shortener/db";

/** A pixel's projection: its type and the columns that read it (a module that imports nothing of core). */
export type Pixel = { id: number; name: string; type: string; value: string; createdAt: Date; updatedAt: Date };

export const pixelColumns = { id: pixels.id, name: pixels.name, type: pixels.type, value: pixels.value, createdAt: pixels.createdAt, updatedAt: pixels.updatedAt };
