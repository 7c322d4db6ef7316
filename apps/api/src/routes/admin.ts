import type { FastifyInstance } from "fastify";
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
 * and password hashes, the cookie secret): like user management it takes the `account` scope and the
 * admin role — a 403 otherwise; a dashboard session counts for nothing here (401), as on every route but
 * the CSV upload. On PostgreSQL a 409 points to pg_dump. The visitor side's waiting clicks are written first, so every
 * visit answered before the request is counted in the backup.
 */
export function adminRoutes(app: FastifyInstance, deps: ApiDeps): void {
  resource(app, "/admin/backup", "account", "instance-admin", {
    GET: async (request, reply) => {
      const auth = request.auth;
      if (!auth) throw unauthenticated();
      if (auth.role !== "admin") throw new HttpError(403, "forbidden", "This action is reserved for administrators.");
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
