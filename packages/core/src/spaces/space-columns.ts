import { spaces } from "@shortener/db";

/** A space's projection: its type and the columns that read it (a module that imports nothing of core). */
export type Space = { id: number; name: string; color: number; createdAt: Date; updatedAt: Date };

export const spaceColumns = { id: spaces.id, name: spaces.name, color: spaces.color, createdAt: spaces.createdAt, updatedAt: spaces.updatedAt };
