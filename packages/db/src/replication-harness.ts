import { execFile } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import postgres from "postgres";
import { freePort } from "./free-port.ts";

const run = promisify(execFile);

/**
 * Two throwaway PostgreSQL clusters in streaming replication and PgBouncer in transaction mode in front
 * of the primary, from Debian's packages (`postgresql-15`, `pgbouncer`), on free ports of 127.0.0.1: for
 * the tests and the benchmark of CONTRACT §26 (docs/scaling.md). The primary is `initdb`'d into a
 * temporary folder with `wal_level = replica` and pg_stat_statements; the replica is its
 * `pg_basebackup -R`. Run as root (as on CI), every server runs as the `postgres` user, which PostgreSQL
 * and PgBouncer require. `stop()` removes everything.
 */
export type ReplicatedPostgres = {
  /** postgres:// URL of a database on the primary, the replica or PgBouncer (in front of the primary). */
  url(server: "primary" | "replica" | "bouncer", database: string): string;
  /** The postmaster's process id of the primary or the replica (its backends are its children). */
  pid(server: "primary" | "replica"): number;
  /** Creates `name` on the primary with pg_stat_statements, and waits until the replica has it. */
  createDatabase(name: string): Promise<void>;
  /** Calls of statements whose text matches `like` in `database` on that server, from pg_stat_statements. */
  statementCalls(server: "primary" | "replica", database: string, like: string): Promise<number>;
  /** Runs one statement on a server (e.g. `select pg_wal_replay_pause()` on the replica) and returns its rows. */
  query<T extends Record<string, unknown>>(server: "primary" | "replica", database: string, text: string): Promise<T[]>;
  /** `SHOW STATS` of PgBouncer's console: per database, its transactions and queries so far. */
  bouncerStats(): Promise<Array<{ database: string; totalXacts: number; totalQueries: number }>>;
  stopReplica(): Promise<void>;
  startReplica(): Promise<void>;
  stop(): Promise<void>;
};

/** The highest installed PostgreSQL's programs (Debian: /usr/lib/postgresql/N/bin). */
function postgresBin(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v)) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error("no PostgreSQL server programs in /usr/lib/postgresql (apt-get install postgresql-15)");
  return join(root, newest, "bin");
}

const isRoot = process.getuid?.() === 0;

/** Runs a server program, as the postgres user when this process is root (initdb, pg_ctl and pgbouncer refuse root). */
async function runAsPostgres(program: string, args: string[]): Promise<string> {
  const [file, argv] = isRoot ? ["runuser", ["-u", "postgres", "--", program, ...args]] : [program, args];
  try {
    const { stdout } = await run(file, argv, { maxBuffer: 10 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new Error(`${program} ${args.join(" ")} failed: ${e.stderr ?? e.message}`);
  }
}

async function idOf(flag: "-u" | "-g"): Promise<number> {
  const { stdout } = await run("id", [flag, "postgres"]);
  return Number(stdout.trim());
}

function acceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });
}

export async function startReplicatedPostgres(options: { withBouncer?: boolean } = {}): Promise<ReplicatedPostgres> {
  const bin = postgresBin();
  const dir = mkdtempSync(join(tmpdir(), "shortener-replication-"));
  if (isRoot) chownSync(dir, await idOf("-u"), await idOf("-g"));
  const [primaryPort, replicaPort, bouncerPort] = [await freePort(), await freePort(), await freePort()];
  const primaryDir = join(dir, "primary");
  const replicaDir = join(dir, "replica");
  const pidOf = { primary: 0, replica: 0 };
  let bouncerPid = 0;

  const pgCtl = (data: string, ...args: string[]) => runAsPostgres(join(bin, "pg_ctl"), ["-D", data, "-w", "-t", "60", ...args]);
  const readPid = (data: string) => Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n", 1)[0]);

  const harness: ReplicatedPostgres = {
    url(server, database) {
      const port = server === "primary" ? primaryPort : server === "replica" ? replicaPort : bouncerPort;
      return `postgres://postgres@127.0.0.1:${port}/${database}`;
    },
    pid: (server) => pidOf[server],
    async createDatabase(name) {
      const admin = postgres(harness.url("primary", "postgres"), { max: 1, onnotice: () => {} });
      try {
        await admin.unsafe(`create database "${name}"`);
      } finally {
        await admin.end();
      }
      const db = postgres(harness.url("primary", name), { max: 1, onnotice: () => {} });
      try {
        await db.unsafe("create extension if not exists pg_stat_statements");
      } finally {
        await db.end();
      }
      // The replica replays both within moments.
      for (const deadline = Date.now() + 30_000; ;) {
        const replica = postgres(harness.url("replica", name), { max: 1, onnotice: () => {}, connect_timeout: 2 });
        const ok = await replica
          .unsafe("select 1 from pg_extension where extname = 'pg_stat_statements'")
          .then((rows) => rows.length === 1)
          .catch(() => false)
          .finally(() => replica.end());
        if (ok) return;
        if (Date.now() > deadline) throw new Error(`the replica did not get database ${name}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async statementCalls(server, database, like) {
      const [row] = await harness.query<{ n: number }>(
        server,
        database,
        `select coalesce(sum(calls), 0)::int as n from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database()) and query like '${like.replace(/'/g, "''")}'`,
      );
      return row?.n ?? 0;
    },
    async query<T extends Record<string, unknown>>(server: "primary" | "replica", database: string, text: string) {
      const client = postgres(harness.url(server, database), { max: 1, onnotice: () => {}, connect_timeout: 5 });
      try {
        return (await client.unsafe(text)) as unknown as T[];
      } finally {
        await client.end();
      }
    },
    async bouncerStats() {
      // The console speaks the simple protocol only.
      const { stdout } = await run("psql", ["-h", "127.0.0.1", "-p", String(bouncerPort), "-U", "postgres", "-d", "pgbouncer", "-At", "-F", "\t", "-c", "show stats"]);
      return stdout
        .trim()
        .split("\n")
        .map((line) => line.split("\t"))
        .map(([database = "", totalXacts = "0", totalQueries = "0"]) => ({ database, totalXacts: Number(totalXacts), totalQueries: Number(totalQueries) }));
    },
    async stopReplica() {
      await pgCtl(replicaDir, "-m", "fast", "stop");
    },
    async startReplica() {
      await pgCtl(replicaDir, "-l", join(dir, "replica.log"), "start");
      pidOf.replica = readPid(replicaDir);
    },
    async stop() {
      if (bouncerPid) {
        try {
          process.kill(bouncerPid, "SIGTERM");
        } catch {
          // already gone
        }
      }
      await pgCtl(replicaDir, "-m", "immediate", "stop").catch(() => {});
      await pgCtl(primaryDir, "-m", "immediate", "stop").catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };

  try {
    await runAsPostgres(join(bin, "initdb"), ["-D", primaryDir, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"]);
    // A throwaway cluster: no fsync. Streaming replication, read queries on the standby, statement counts.
    await runAsPostgres("sh", [
      "-c",
      `cat >> '${join(primaryDir, "postgresql.conf")}' <<'EOF'
listen_addresses = '127.0.0.1'
port = ${primaryPort}
unix_socket_directories = '${dir}'
max_connections = 200
shared_buffers = 64MB
fsync = off
full_page_writes = off
wal_level = replica
max_wal_senders = 5
hot_standby = on
hot_standby_feedback = on
shared_preload_libraries = 'pg_stat_statements'
pg_stat_statements.track = all
EOF`,
    ]);
    await pgCtl(primaryDir, "-l", join(dir, "primary.log"), "start");
    pidOf.primary = readPid(primaryDir);
    await runAsPostgres(join(bin, "pg_basebackup"), ["-h", "127.0.0.1", "-p", String(primaryPort), "-U", "postgres", "-D", replicaDir, "-R", "-X", "stream", "-c", "fast", "--no-sync"]);
    await runAsPostgres("sh", ["-c", `echo "port = ${replicaPort}" >> '${join(replicaDir, "postgresql.conf")}'`]);
    await harness.startReplica();

    if (options.withBouncer !== false) {
      const ini = join(dir, "pgbouncer.ini");
      writeFileSync(join(dir, "userlist.txt"), '"postgres" ""\n');
      writeFileSync(
        ini,
        `[databases]
* = host=127.0.0.1 port=${primaryPort}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${bouncerPort}
unix_socket_dir =
auth_type = trust
auth_file = ${join(dir, "userlist.txt")}
admin_users = postgres
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 20
ignore_startup_parameters = extra_float_digits
logfile = ${join(dir, "pgbouncer.log")}
pidfile = ${join(dir, "pgbouncer.pid")}
`,
      );
      if (isRoot) for (const file of [ini, join(dir, "userlist.txt")]) chownSync(file, await idOf("-u"), await idOf("-g"));
      await runAsPostgres("pgbouncer", ["-d", ini]);
      for (const deadline = Date.now() + 10_000; !(await acceptsConnections(bouncerPort));) {
        if (Date.now() > deadline) throw new Error("PgBouncer did not start");
        await new Promise((r) => setTimeout(r, 50));
      }
      bouncerPid = Number(readFileSync(join(dir, "pgbouncer.pid"), "utf8").trim());
    }
    return harness;
  } catch (error) {
    await harness.stop().catch(() => {});
    throw error;
  }
}
