// The embedded backup's container (docs/adr/0037-embedded-backups.md): a plain ustar archive, written
// as a stream from files on disk and read back as a stream, strictly — a backup that is cut short or is
// not one is refused, never half-read. Only what a PostgreSQL data folder holds: regular files and folders.
import { createReadStream, readFileSync } from "node:fs";
import { lstat } from "node:fs/promises";
import { join } from "node:path";

const BLOCK = 512;
/** ustar's `size` field: 11 octal digits. */
const MAX_SIZE = 8 ** 11 - 1;
/** Files up to this size are read in one go. */
const WHOLE_FILE = 1024 * 1024;

export type TarEntry = { name: string; type: "file" | "dir"; size: number; mtime: Date };

function field(header: Buffer, offset: number, length: number, value: string): void {
  header.write(value, offset, length, "ascii");
}

function octal(value: number, digits: number): string {
  return value.toString(8).padStart(digits, "0");
}

/** One ustar header block: names up to 100 bytes (a data folder's are far shorter), or a thrown error. */
export function tarHeader(entry: TarEntry): Buffer {
  const name = entry.type === "dir" ? `${entry.name}/` : entry.name;
  if (Buffer.byteLength(name) > 100) throw new Error(`a backup cannot hold the path ${name}: longer than 100 bytes`);
  if (entry.size > MAX_SIZE) throw new Error(`a backup cannot hold ${name}: larger than 8 GB`);
  const header = Buffer.alloc(BLOCK);
  field(header, 0, 100, name);
  field(header, 100, 8, `${octal(entry.type === "dir" ? 0o755 : 0o600, 7)}\0`);
  field(header, 108, 8, `${octal(0, 7)}\0`);
  field(header, 116, 8, `${octal(0, 7)}\0`);
  field(header, 124, 12, `${octal(entry.type === "dir" ? 0 : entry.size, 11)}\0`);
  field(header, 136, 12, `${octal(Math.max(0, Math.floor(entry.mtime.getTime() / 1000)), 11)}\0`);
  field(header, 148, 8, "        ");
  field(header, 156, 1, entry.type === "dir" ? "5" : "0");
  field(header, 257, 8, "ustar\u000000");
  let sum = 0;
  for (const byte of header) sum += byte;
  field(header, 148, 8, `${octal(sum, 6)}\0 `);
  return header;
}

function padding(size: number): Buffer {
  const rest = size % BLOCK;
  return Buffer.alloc(rest ? BLOCK - rest : 0);
}

/** A file given as bytes in memory (the backup's manifest), or read from `path` on disk. */
export type TarSource = { name: string; type: "dir" } | { name: string; type: "file"; data: Buffer } | { name: string; type: "file"; path: string };

/**
 * The archive of `sources`, in order, as chunks. A file on disk is read as it is when its turn comes:
 * its size is taken then, and a file that changes size while read fails the archive.
 */
export async function* writeTar(sources: Iterable<TarSource>): AsyncGenerator<Buffer> {
  for (const source of sources) {
    if (source.type === "dir") {
      yield tarHeader({ name: source.name, type: "dir", size: 0, mtime: new Date() });
    } else if ("data" in source) {
      yield tarHeader({ name: source.name, type: "file", size: source.data.length, mtime: new Date() });
      yield source.data;
      yield padding(source.data.length);
    } else {
      const stat = await lstat(source.path);
      yield tarHeader({ name: source.name, type: "file", size: stat.size, mtime: stat.mtime });
      let read = 0;
      // Most files of a data folder are small: one synchronous read each (on a busy process, an
      // asynchronous one waits a turn of the event loop per file); the large ones in 1 MiB chunks.
      const chunks = stat.size <= WHOLE_FILE ? [readFileSync(source.path)] : createReadStream(source.path, { highWaterMark: WHOLE_FILE });
      for await (const chunk of chunks) {
        read += (chunk as Buffer).length;
        yield chunk as Buffer;
      }
      if (read !== stat.size) throw new Error(`${source.path} changed while it was archived`);
      yield padding(stat.size);
    }
  }
  yield Buffer.alloc(BLOCK * 2);
}

/** What reading an archive found wrong: the one-line reason the restore reports. */
export class TarError extends Error {}

function readOctal(header: Buffer, offset: number, length: number): number {
  const text = header
    .subarray(offset, offset + length)
    .toString("ascii")
    .replace(/[\0 ]+$/, "")
    .trim();
  if (!/^[0-7]+$/.test(text)) throw new TarError("an archive header is damaged");
  return parseInt(text, 8);
}

function parseHeader(header: Buffer): TarEntry {
  const stored = readOctal(header, 148, 8);
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : (header[i] ?? 0);
  if (sum !== stored) throw new TarError("an archive header is damaged (bad checksum)");
  const nul = header.indexOf(0);
  const rawName = header.subarray(0, nul >= 0 && nul < 100 ? nul : 100).toString("utf8");
  const type = String.fromCharCode(header[156] ?? 0);
  if (type !== "0" && type !== "\0" && type !== "5") throw new TarError(`the archive holds ${rawName}, which is neither a file nor a folder`);
  const name = rawName.replace(/\/$/, "");
  // Only plain relative paths: nothing may land outside the folder being restored.
  if (!name || name.startsWith("/") || name.split("/").some((part) => part === ".." || part === "." || part === "")) throw new TarError(`the archive holds a path that is not allowed: ${rawName}`);
  return { name, type: type === "5" ? "dir" : "file", size: type === "5" ? 0 : readOctal(header, 124, 12), mtime: new Date(readOctal(header, 136, 12) * 1000) };
}

/**
 * Reads an archive from `chunks`: each entry's header, then its content (`onFile`, called with the
 * content's chunks, awaited). Ends at the two zero blocks that close an archive; a stream that ends
 * before them is a truncated archive (`TarError`).
 */
export async function readTar(chunks: AsyncIterable<Buffer>, onEntry: (entry: TarEntry, content: AsyncIterable<Buffer>) => Promise<void>): Promise<void> {
  const iterator = chunks[Symbol.asyncIterator]();
  let buffer: Buffer = Buffer.alloc(0);
  let isEnd = false;
  /** At least `n` bytes in `buffer`, or false at the end of the stream. */
  const fill = async (n: number): Promise<boolean> => {
    while (buffer.length < n && !isEnd) {
      const next = await iterator.next();
      if (next.done) isEnd = true;
      else buffer = buffer.length ? Buffer.concat([buffer, next.value]) : next.value;
    }
    return buffer.length >= n;
  };
  const take = (n: number): Buffer => {
    const head = buffer.subarray(0, n);
    buffer = buffer.subarray(n);
    return head;
  };
  for (;;) {
    if (!(await fill(BLOCK))) throw new TarError(buffer.length || !isEnd ? "the archive is truncated" : "the archive is truncated (it ends before its end marker)");
    const header = take(BLOCK);
    if (header.every((byte) => byte === 0)) {
      if (!(await fill(BLOCK)) || !take(BLOCK).every((byte) => byte === 0)) throw new TarError("the archive is truncated (its end marker is incomplete)");
      return;
    }
    const entry = parseHeader(header);
    let left = entry.size;
    async function* content(): AsyncGenerator<Buffer> {
      while (left > 0) {
        if (!(await fill(1))) throw new TarError(`the archive is truncated (inside ${entry.name})`);
        const part = take(Math.min(left, buffer.length));
        left -= part.length;
        yield part;
      }
    }
    await onEntry(entry, content());
    // Whatever the callback left unread, then the padding to the next block.
    for await (const _ of content());
    const pad = entry.size % BLOCK ? BLOCK - (entry.size % BLOCK) : 0;
    if (!(await fill(pad))) throw new TarError(`the archive is truncated (after ${entry.name})`);
    take(pad);
  }
}

/** Every file and folder under `root`, folders before what they hold, as `TarSource`s named under `prefix`. */
export async function listTree(root: string, prefix: string, skip: (relative: string) => boolean): Promise<TarSource[]> {
  const { readdir } = await import("node:fs/promises");
  const out: TarSource[] = [];
  const walk = async (relative: string) => {
    const entries = await readdir(join(root, relative), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = relative ? `${relative}/${entry.name}` : entry.name;
      if (skip(path)) continue;
      if (entry.isDirectory()) {
        out.push({ name: `${prefix}/${path}`, type: "dir" });
        await walk(path);
      } else if (entry.isFile()) {
        out.push({ name: `${prefix}/${path}`, type: "file", path: join(root, path) });
      }
    }
  };
  await walk("");
  return out;
}
