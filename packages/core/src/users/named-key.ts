import { apiKeys, users } from "@shortener/db";
import { API_KEY_SCOPES, type Scope } from "./scopes.ts";

/** A named, scoped API key as its owner sees it (CONTRACT §17): never the secret, which only its creation returns. */
export type ApiKey = {
  id: number;
  name: string;
  prefix: string;
  scopes: Scope[];
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  createdAt: Date;
  /** Who made it: a workspace's keys are listed and managed by its admins, and each acts with its maker's role (CONTRACT §24). */
  createdBy: { id: number; name: string; email: string };
};

export const namedKeyColumns = {
  id: apiKeys.id,
  name: apiKeys.name,
  prefix: apiKeys.prefix,
  scopes: apiKeys.scopes,
  expiresAt: apiKeys.expiresAt,
  lastUsedAt: apiKeys.lastUsedAt,
  createdAt: apiKeys.createdAt,
  makerId: apiKeys.userId,
};

/** The maker's name and email, joined on `users` (`innerJoin(users, eq(users.id, apiKeys.userId))`). */
export const makerColumns = { makerName: users.name, makerEmail: users.email };

type NamedKeyRow = {
  id: number;
  name: string | null;
  prefix: string;
  scopes: string[] | null;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  createdAt: Date;
  makerId: number;
  makerName: string;
  makerEmail: string;
};

export function toApiKey(row: NamedKeyRow): ApiKey {
  return {
    id: row.id,
    name: row.name ?? "",
    prefix: row.prefix,
    scopes: API_KEY_SCOPES.filter((scope) => row.scopes?.includes(scope)),
    expiresAt: row.expiresAt,
    lastUsedAt: row.lastUsedAt,
    createdAt: row.createdAt,
    createdBy: { id: row.makerId, name: row.makerName, email: row.makerEmail },
  };
}
