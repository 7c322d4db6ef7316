import type { FastifyInstance } from "fastify";
import { hasFullRights } from "@shortener/core";
import { backupArchive, formatBackupCounts, snapshotEmbedded } from "@shortener/db";
import type { ApiDeps } from "../deps.ts";
import { HttpError, unauthenticated } from "../errors.ts";
import { resource } from "../http/routes.ts";

/** The answer header that says what a backup holds, counted at the moment of its copy (docs/backups.md). */
export const BACKUP_COUNTS_HEADER = "shortener-backup-counts";

/** `shortener-backup-20261126T231340Z.tar.gz`: the moment of the copy, in UTC. */
export function backupFileName(createdAt: string): string {
  return `shortener-backup-${createdAt.replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z")}.tar.gz`;
}

/**
 * CONTRACT §22: `GET /api/v1/admin/backup` streams a consistent backup of the embedded database
 * (docs/backups.md, docs/adr/0037-embedded-backups.md). A backup holds every secret of the service (key
 * and password hashes, the cookie secret), so it takes the admin's full-rights key: the `account` scope
 * (declared, as for user management), the admin role and every scope without expiry — a 403 otherwise.
 * On PostgreSQL a 409 points to pg_dump. The visitor side's waiting clicks are written first, so every
 * visit answered before the request is counted in the backup.
 */
export function adminRoutes(app: FastifyInstance, deps: ApiDeps): void {
  resource(app, "/admin/backup", "account", {
    GET: async (request, reply) => {
      const auth = request.auth;
      if (!auth) throw unauthenticated();
      if (auth.role !== "admin") throw new HttpError(403, "forbidden", "This action is reserved for administrators.");
      if (!hasFullRights({ scopes: auth.scopes, expiresAt: auth.expiresAt }))
        throw new HttpError(403, "forbidden", "A backup holds every secret of the service: take it with an admin key that has every scope and no expiry.");
      const backup = deps.backup;
      if (deps.database.driver !== "pglite" || !backup) throw new HttpError(409, "conflict", "This service runs on PostgreSQL: back it up with pg_dump (see docs/backups.md).");
      await backup.beforeSnapshot?.();
      const snapshot = await snapshotEmbedded(deps.database, backup.dataDir);
      request.log.info({ counts: snapshot.manifest.counts, pausedMs: Math.round(snapshot.pausedMs) }, "backup taken");
      return reply
        .headers({
          "content-type": "application/gzip",
          "content-disposition": `attachment; filename="${backupFileName(snapshot.manifest.createdAt)}"`,
          "cache-control": "no-store",
          "x-content-type-options": "nosniff",
          [BACKUP_COUNTS_HEADER]: formatBackupCounts(snapshot.manifest.counts),
        })
        .send(backupArchive(snapshot));
    },
  });
}
