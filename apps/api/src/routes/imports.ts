import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import multipart from "@fastify/multipart";
import { CsvFormatError, ERRORS_CSV_HEADER, formatErrorsCsv, summarizeCsv } from "@shortener/csv";
import type { FastifyInstance, FastifyRequest } from "fastify";
import {
  createImport,
  CreateImportInput,
  getImport,
  IMPORT_FORMATS,
  importFileReading,
  isImportFormat,
  listImports,
  ListImportsInput,
  SOURCE_PART_CHARS,
  streamImportErrors,
  ValidationError,
} from "@shortener/core";
import type { ApiDeps } from "../deps.ts";
import { HttpError, toErrorResponse } from "../errors.ts";
import { ctxOf } from "../http/auth.ts";
import { readTextParts } from "../http/csv-upload.ts";
import { privateCsvHeaders } from "../http/csv.ts";
import { sendList } from "../http/envelope.ts";
import { formInput } from "../http/form.ts";
import { idParam, resource } from "../http/routes.ts";
import { importJson } from "../serialize/imports.ts";

const CSV_TYPES = ["text/csv", "application/csv"];
const UNSUPPORTED = "Send the file as a text/csv body, or as multipart/form-data with a file field named file.";

const MALFORMED_MULTIPART = "The multipart body is malformed (no boundary, or a part cut off).";

/**
 * The multipart parser's own errors (no boundary, a body that ends inside a part) are plain `Error`s
 * without a `code`: the client's fault, a 400. Ours (`HttpError`, core's), Fastify's and the system's
 * (a full disk) all carry one and keep their own answer.
 */
function isMalformedMultipart(error: unknown): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === undefined;
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;
  if (bytes >= 1024) return `${Math.round((bytes / 1024) * 10) / 10} KiB`;
  return `${bytes} bytes`;
}

/**
 * `/imports` (CONTRACT §12). Registered as a plugin of its own: the text/csv and multipart parsers and
 * the larger body limit exist only here, so every other route keeps answering 415 for those types.
 */
export async function importRoutes(app: FastifyInstance, deps: ApiDeps): Promise<void> {
  const { importMaxBytes, importMaxRows } = deps.config;
  // The body stays a stream: it goes to a temporary file, never whole into memory.
  app.addContentTypeParser(CSV_TYPES, (_request, payload, done) => done(null, payload));
  await app.register(multipart, { limits: { fileSize: importMaxBytes, files: 1, fields: 10, parts: 12, fieldSize: 1024 } });

  const tooLarge = () => new HttpError(413, "payload_too_large", `The file is larger than ${formatBytes(importMaxBytes)}.`);
  app.setErrorHandler((error, request, reply) => {
    const code = (error as { code?: unknown }).code;
    const mapped =
      code === "FST_ERR_CTP_BODY_TOO_LARGE" || code === "FST_REQ_FILE_TOO_LARGE"
        ? tooLarge()
        : code === "FST_ERR_CTP_INVALID_MEDIA_TYPE" || code === "FST_INVALID_MULTIPART_CONTENT_TYPE"
          ? new HttpError(415, "unsupported_media_type", UNSUPPORTED)
          : code === "FST_PARTS_LIMIT" || code === "FST_FILES_LIMIT" || code === "FST_FIELDS_LIMIT"
            ? new HttpError(400, "bad_request", "Send one file, in the field named file.")
            : error;
    const { status, body, headers, isUnexpected } = toErrorResponse(mapped);
    if (isUnexpected) request.log.error({ err: error, url: request.url, method: request.method }, "unexpected error");
    return reply.code(status).headers(headers).send(body);
  });

  /** Copies `input` to `path`, refusing it (413) past the size limit. */
  async function save(input: NodeJS.ReadableStream, path: string): Promise<void> {
    let bytes = 0;
    const limit = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        done(bytes > importMaxBytes ? tooLarge() : null, chunk);
      },
    });
    await pipeline(input, limit, createWriteStream(path));
  }

  /**
   * Receives the upload into a temporary file (bounded memory whatever its size): a text/csv body (the
   * default domain and the format in the query) or a multipart form (`file`, and `domain_id` and
   * `format` before or after it; a form field wins over the query).
   */
  async function receiveUpload(request: FastifyRequest, path: string): Promise<{ domainId: unknown; format: unknown }> {
    const query = request.query as Record<string, unknown>;
    const declared = Number(request.headers["content-length"] ?? 0);
    if (declared > importMaxBytes && !request.isMultipart()) throw tooLarge();
    const body = request.body as unknown;
    if (body && typeof (body as NodeJS.ReadableStream).pipe === "function" && !request.isMultipart()) {
      await save(body as NodeJS.ReadableStream, path);
      return { domainId: query.domain_id, format: query.format };
    }
    if (!request.isMultipart()) throw new HttpError(415, "unsupported_media_type", UNSUPPORTED);
    let hasFile = false;
    let domainId: unknown = query.domain_id;
    let format: unknown = query.format;
    try {
      for await (const part of request.parts()) {
        if (part.type === "file") {
          if (part.fieldname !== "file" || hasFile) {
            part.file.resume();
            continue;
          }
          await save(part.file, path);
          if (part.file.truncated) throw tooLarge();
          hasFile = true;
        } else if (part.fieldname === "domain_id" && part.value !== "") {
          domainId = part.value;
        } else if (part.fieldname === "format" && part.value !== "") {
          format = part.value;
        }
      }
    } catch (error) {
      throw isMalformedMultipart(error) ? new HttpError(400, "bad_request", MALFORMED_MULTIPART) : error;
    }
    if (!hasFile) throw new ValidationError({ file: ["The file field is required."] });
    return { domainId, format };
  }

  // There is no imports:read: the scope that uploads a file also follows its job (docs/adr/0027-scoped-api-keys.md).
  // The upload and the errors file also take the dashboard's session (the upload with its CSRF header):
  // tRPC cannot carry a file nor answer CSV (docs/adr/0028-dashboard.md).
  const dashboard = { isSessionAllowed: true };
  resource(
    app,
    "/imports",
    "imports:write",
    "editor",
    {
      GET: async (request, reply) => sendList(request, reply, await listImports({ ctx: ctxOf(deps, request), input: formInput(ListImportsInput, request.query) }), (job) => importJson(job)),
      POST: async (request, reply) => {
        const ctx = ctxOf(deps, request);
        const dir = await mkdtemp(join(tmpdir(), "shortener-upload-"));
        try {
          const path = join(dir, "upload.csv");
          const received = await receiveUpload(request, path);
          const { domainId } = received;
          // CONTRACT §23: `csv` (§12) unless another service's export is named; an unknown one is refused before the file is read.
          const format = received.format === undefined || received.format === "" ? "csv" : received.format;
          if (!isImportFormat(format)) throw new ValidationError({ format: [`The format must be one of ${IMPORT_FORMATS.join(", ")}.`] });
          const reading = importFileReading(format);
          // The header and row count, read by the importer's own CSV reader, so `total_rows` is what it will read.
          const upload = await summarizeCsv(readTextParts(path, 1024 * 1024), { headerKey: reading.headerKey }).catch((error: unknown) => {
            if (error instanceof CsvFormatError) throw new ValidationError({ file: [error.message] });
            throw error;
          });
          const headerProblem = reading.checkHeader(upload.header);
          if (headerProblem) throw new ValidationError({ file: [headerProblem] });
          if (upload.rows === 0) throw new ValidationError({ file: ["The file has no rows after its header."] });
          if (upload.rows > importMaxRows) throw new ValidationError({ file: [`The file has more than ${importMaxRows.toLocaleString("en-US")} rows.`] });
          const key = request.headers["idempotency-key"];
          const { job, isNew } = await createImport({
            ctx,
            input: formInput(CreateImportInput, {
              total_rows: upload.rows,
              format,
              ...(domainId !== undefined && domainId !== "" ? { domain_id: domainId } : {}),
              ...(typeof key === "string" && key !== "" ? { idempotency_key: key } : {}),
            }),
            // Reads of 1 MiB: parts of up to SOURCE_PART_CHARS each, as createImport stores them.
            sourceParts: readTextParts(path, SOURCE_PART_CHARS / 2),
          });
          if (!isNew) {
            const current = await getImport({ ctx, id: job.id });
            return reply.code(200).send({ data: importJson(current, current.errors), status: 200 });
          }
          if (deps.enqueueImport) {
            await deps.enqueueImport(job.id).catch((error: unknown) => request.log.warn({ err: error, jobId: job.id }, "import not queued; a worker's sweep will take it"));
          }
          return reply.code(202).send({ data: importJson(job, []), status: 202 });
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      },
    },
    dashboard,
  );

  resource(app, "/imports/:id", "imports:write", "editor", {
    GET: async (request, reply) => {
      const job = await getImport({ ctx: ctxOf(deps, request), id: idParam(request.params) });
      return reply.code(200).send({ data: importJson(job, job.errors), status: 200 });
    },
  });

  resource(
    app,
    "/imports/:id/errors",
    "imports:write",
    "editor",
    {
      GET: async (request, reply) => {
        const id = idParam(request.params);
        const pages = await streamImportErrors({ ctx: ctxOf(deps, request), id });
        const body = Readable.from(
          (async function* () {
            yield ERRORS_CSV_HEADER;
            for await (const page of pages) yield formatErrorsCsv(page);
          })(),
        );
        // Rows of the caller's own file: never stored by a cache, like the other CSV downloads.
        return reply
          .code(200)
          .headers(privateCsvHeaders(`import-${id}-errors.csv`))
          .send(body);
      },
    },
    dashboard,
  );
}
