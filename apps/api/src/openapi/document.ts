import { z } from "zod";
import * as core from "@shortener/core";
import type { RouteRole, RouteScope } from "../http/auth.ts";
import {
  acceptedEnvelope,
  ApiKeyJson,
  AuditEntryJson,
  bulkDeletedEnvelope,
  createdEnvelope,
  CreatedWebhookJson,
  CreatedUserJson,
  CreatedNamedApiKeyJson,
  NamedApiKeyJson,
  deletedEnvelope,
  DomainDetailJson,
  ErrorJson,
  ImportJson,
  LinkJson,
  listEnvelope,
  oneEnvelope,
  PixelJson,
  SpaceJson,
  StatRowJson,
  TagJson,
  StatsSummaryJson,
  DomainVisitsSummaryJson,
  UserJson,
  ValidationErrorJson,
  WebhookAttemptJson,
  WebhookJson,
  AccountJson,
  WorkspaceJson,
  MemberJson,
  InvitationJson,
  CreatedInvitationJson,
} from "./schemas.ts";

/** A JSON Schema or OpenAPI object: plain JSON. */
type Json = { [key: string]: unknown };

type Resource = {
  path: string;
  tag: string;
  name: "Link" | "Domain" | "Space" | "Pixel";
  object: "link" | "domain" | "space" | "pixel";
  json: z.ZodType;
  list: z.ZodObject;
  create: z.ZodType;
  update: z.ZodType;
};

const RESOURCES: Resource[] = [
  { path: "/links", tag: "Links", name: "Link", object: "link", json: LinkJson, list: core.ListLinksInput, create: core.CreateLinkInput, update: core.UpdateLinkInput },
  { path: "/domains", tag: "Domains", name: "Domain", object: "domain", json: DomainDetailJson, list: core.ListDomainsInput, create: core.CreateDomainInput, update: core.UpdateDomainInput },
  { path: "/spaces", tag: "Spaces", name: "Space", object: "space", json: SpaceJson, list: core.ListSpacesInput, create: core.CreateSpaceInput, update: core.UpdateSpaceInput },
  { path: "/pixels", tag: "Pixels", name: "Pixel", object: "pixel", json: PixelJson, list: core.ListPixelsInput, create: core.CreatePixelInput, update: core.UpdatePixelInput },
];

/**
 * Request schemas with `io: "input"`: what a client may send, before the schemas' own preprocessing.
 * `unrepresentable: "any"` covers the fields every value of which is refused (`domain_id` on a link
 * update, `name` on a domain update): they become `{}` (docs/adr/0007-openapi.md).
 */
function toSchemas(registry: z.core.$ZodRegistry<{ id: string }>, io: "input" | "output"): Record<string, Json> {
  const { schemas } = z.toJSONSchema(registry, { io, unrepresentable: "any", uri: (id) => `#/components/schemas/${id}` }) as { schemas: Record<string, Json> };
  for (const schema of Object.values(schemas)) {
    delete schema.$schema;
    delete schema.$id;
  }
  return schemas;
}

/** An optional query parameter can be absent but not JSON `null`: drop the `null` branch forms need. */
function withoutNull(schema: Json): Json {
  if (Array.isArray(schema.anyOf)) {
    const rest = (schema.anyOf as Json[]).filter((s) => s.type !== "null");
    return rest.length === 1 && rest[0] ? rest[0] : { ...schema, anyOf: rest };
  }
  if (Array.isArray(schema.type)) {
    const rest = (schema.type as string[]).filter((t) => t !== "null");
    return { ...schema, type: rest.length === 1 ? rest[0] : rest };
  }
  return schema;
}

/** The query parameters of a list or a series: every field of `schema` (but `omit`), required as the schema requires it. */
function queryParameters(schema: z.ZodObject, omit: string[] = []): Json[] {
  const { properties = {}, required = [] } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as { properties?: Record<string, Json>; required?: string[] };
  return Object.entries(properties)
    .filter(([name]) => !omit.includes(name))
    .map(([name, s]) => ({ name, in: "query", required: required.includes(name), schema: withoutNull(s) }));
}

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
const responseRef = (name: string) => ({ $ref: `#/components/responses/${name}` });
const RATE_HEADERS = {
  "X-RateLimit-Limit": { $ref: "#/components/headers/X-RateLimit-Limit" },
  "X-RateLimit-Remaining": { $ref: "#/components/headers/X-RateLimit-Remaining" },
};
const ok = (description: string, schemaId: string) => ({ description, headers: RATE_HEADERS, content: { "application/json": { schema: ref(schemaId) } } });
const body = (schemaId: string, required: boolean) => ({
  required,
  content: { "application/x-www-form-urlencoded": { schema: ref(schemaId) }, "application/json": { schema: ref(schemaId) } },
});

/** The error responses every authenticated operation can give, plus the ones named. */
function errors(...extra: Array<"BadRequest" | "Forbidden" | "NotFound" | "ValidationFailed" | "PayloadTooLarge" | "FileTooLarge" | "UnsupportedMediaType">) {
  const statuses = { BadRequest: "400", Forbidden: "403", NotFound: "404", ValidationFailed: "422", PayloadTooLarge: "413", FileTooLarge: "413", UnsupportedMediaType: "415" };
  const out: Json = { "401": responseRef("Unauthenticated"), "429": responseRef("TooManyRequests") };
  for (const name of extra) out[statuses[name]] = responseRef(name);
  return out;
}

const ID_PARAMETER = {
  name: "id",
  in: "path",
  required: true,
  description: "Any other value, or an id of someone else's resource, is a 404.",
  schema: (z.toJSONSchema(core.IdInput).properties ?? {}).id,
};

/** One property of an input schema, as JSON Schema (io "input"). */
function inputProperty(schema: z.ZodObject, name: string): Json {
  const { properties = {} } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as { properties?: Record<string, Json> };
  return withoutNull(properties[name] ?? {});
}

/** What each part of the document adds to: the input and output schema registries, and the paths. */
type Parts = { inputs: z.core.$ZodRegistry<{ id: string }>; outputs: z.core.$ZodRegistry<{ id: string }>; paths: Record<string, Json> };

/**
 * The whole document: each part adds its schemas and paths in turn (the order is the document's
 * order), then `frame` wraps them with the info, security, shared headers and error responses.
 */
function buildDocument(): Json {
  const parts: Parts = { inputs: z.registry<{ id: string }>(), outputs: z.registry<{ id: string }>(), paths: {} };
  for (const add of [addResources, addBulkLinks, addDomainVerification, addWebhooks, addAccountAndUsers, addWorkspaces, addLinkTools, addStats, addImports, addAudit, addMeta]) add(parts);
  return frame(parts);
}

/** The four CRUD resources (CONTRACT §3–§5): their schemas, collection and item paths. */
function addResources({ inputs, outputs, paths }: Parts): void {
  for (const r of RESOURCES) {
    inputs.add(r.create, { id: `Create${r.name}Input` });
    inputs.add(r.update, { id: `Update${r.name}Input` });
    outputs.add(r.json, { id: r.name });
    outputs.add(oneEnvelope(r.json), { id: `${r.name}Response` });
    outputs.add(createdEnvelope(r.json), { id: `${r.name}Created` });
    outputs.add(listEnvelope(r.json), { id: `${r.name}List` });
    outputs.add(deletedEnvelope(r.object), { id: `${r.name}Deleted` });
    const tags = [r.tag];
    paths[r.path] = {
      get: {
        operationId: `list${r.tag}`,
        tags,
        summary: `List your ${r.object}s`,
        parameters: queryParameters(r.list),
        responses: { "200": ok("A page", `${r.name}List`), ...errors("ValidationFailed") },
      },
      post: {
        operationId: `create${r.name}`,
        tags,
        summary: `Create a ${r.object}`,
        requestBody: body(`Create${r.name}Input`, true),
        responses: { "201": ok("Created", `${r.name}Created`), ...errors("ValidationFailed", "PayloadTooLarge", "UnsupportedMediaType") },
      },
    };
    const update = (verb: string) => ({
      operationId: `${verb}${r.name}`,
      tags,
      summary: `Change a ${r.object}: only the fields sent change; an empty value clears a field`,
      requestBody: body(`Update${r.name}Input`, false),
      responses: { "200": ok("Changed", `${r.name}Response`), ...errors("NotFound", "ValidationFailed", "PayloadTooLarge", "UnsupportedMediaType") },
    });
    paths[`${r.path}/{id}`] = {
      parameters: [ID_PARAMETER],
      get: { operationId: `get${r.name}`, tags, summary: `One ${r.object}`, responses: { "200": ok("The resource", `${r.name}Response`), ...errors("NotFound") } },
      put: update("update"),
      patch: update("patch"),
      delete: { operationId: `delete${r.name}`, tags, summary: `Delete a ${r.object}`, responses: { "200": ok("Deleted", `${r.name}Deleted`), ...errors("NotFound") } },
    };
  }
}

/** CONTRACT §17: bulk changes on the links' collection, all or nothing (docs/api.md). */
function addBulkLinks({ inputs, outputs, paths }: Parts): void {
  inputs.add(core.BulkUpdateLinksInput, { id: "BulkUpdateLinksInput" });
  outputs.add(bulkDeletedEnvelope("link"), { id: "LinksBulkDeleted" });
  paths["/links"] = {
    ...paths["/links"],
    patch: {
      operationId: "bulkUpdateLinks",
      tags: ["Links"],
      summary: "Change up to 100 of your links at once: the same fields and rules as PATCH /links/{id}, all or nothing",
      description:
        "`ids` (1–100; `ids=1,2,3`, `ids[]=1` or a JSON array; duplicates count once; also accepted in the query) names the links. Any failing field, or an unknown or foreign id (a 422 on `ids`), changes nothing. `alias` only with a single id. Answers the changed links in the order of `ids`, as one page.",
      requestBody: body("BulkUpdateLinksInput", true),
      responses: { "200": ok("The changed links", "LinkList"), ...errors("ValidationFailed", "PayloadTooLarge", "UnsupportedMediaType") },
    },
    delete: {
      operationId: "bulkDeleteLinks",
      tags: ["Links"],
      summary: "Delete up to 100 of your links at once, all or nothing",
      description: "An unknown or foreign id among them is a 422 on `ids`, and nothing is deleted. Duplicates count once.",
      parameters: [
        {
          name: "ids",
          in: "query",
          required: true,
          style: "form",
          explode: false,
          description: "1–100 link ids, comma-separated (`ids=1,2,3`); repeated `ids=` or `ids[]=` also work.",
          schema: inputProperty(core.BulkDeleteLinksInput, "ids"),
        },
      ],
      responses: { "200": ok("Deleted", "LinksBulkDeleted"), ...errors("ValidationFailed") },
    },
  };
}

/** A domain's verification (CONTRACT §14). */
function addDomainVerification({ paths }: Parts): void {
  paths["/domains/{id}/verify"] = {
    parameters: [ID_PARAMETER],
    post: {
      operationId: "verifyDomain",
      tags: ["Domains"],
      summary: "Look up the domain's TXT record (its `verification`) and, when found, mark it verified so it serves",
      responses: {
        "200": ok("The domain, verified", "DomainResponse"),
        ...errors("NotFound", "ValidationFailed"),
      },
    },
  };
}

/** Webhooks and their deliveries (docs/adr/0023-webhooks.md). */
function addWebhooks({ inputs, outputs, paths }: Parts): void {
  inputs.add(core.CreateWebhookInput, { id: "CreateWebhookInput" });
  inputs.add(core.UpdateWebhookInput, { id: "UpdateWebhookInput" });
  outputs.add(WebhookJson, { id: "Webhook" });
  outputs.add(oneEnvelope(WebhookJson), { id: "WebhookResponse" });
  outputs.add(createdEnvelope(CreatedWebhookJson), { id: "WebhookCreated" });
  outputs.add(listEnvelope(WebhookJson), { id: "WebhookList" });
  outputs.add(deletedEnvelope("webhook"), { id: "WebhookDeleted" });
  outputs.add(WebhookAttemptJson, { id: "WebhookAttempt" });
  outputs.add(listEnvelope(WebhookAttemptJson), { id: "WebhookAttemptList" });
  const hooks = ["Webhooks"];
  paths["/webhooks"] = {
    get: {
      operationId: "listWebhooks",
      tags: hooks,
      summary: "List your webhooks",
      parameters: queryParameters(core.ListWebhooksInput),
      responses: { "200": ok("A page", "WebhookList"), ...errors("ValidationFailed") },
    },
    post: {
      operationId: "createWebhook",
      tags: hooks,
      summary: "Create a webhook; its signing secret is in this response only",
      requestBody: body("CreateWebhookInput", true),
      responses: { "201": ok("Created, with its secret", "WebhookCreated"), ...errors("ValidationFailed", "PayloadTooLarge", "UnsupportedMediaType") },
    },
  };
  const updateWebhook = (verb: string) => ({
    operationId: `${verb}Webhook`,
    tags: hooks,
    summary: "Change a webhook: only the fields sent change",
    requestBody: body("UpdateWebhookInput", false),
    responses: { "200": ok("Changed", "WebhookResponse"), ...errors("NotFound", "ValidationFailed", "PayloadTooLarge", "UnsupportedMediaType") },
  });
  paths["/webhooks/{id}"] = {
    parameters: [ID_PARAMETER],
    get: { operationId: "getWebhook", tags: hooks, summary: "One webhook", responses: { "200": ok("The webhook", "WebhookResponse"), ...errors("NotFound") } },
    put: updateWebhook("update"),
    patch: updateWebhook("patch"),
    delete: { operationId: "deleteWebhook", tags: hooks, summary: "Delete a webhook with its deliveries", responses: { "200": ok("Deleted", "WebhookDeleted"), ...errors("NotFound") } },
  };
  paths["/webhooks/{id}/deliveries"] = {
    parameters: [ID_PARAMETER],
    get: {
      operationId: "listWebhookDeliveries",
      tags: hooks,
      summary: "Every attempt of the webhook's deliveries, newest first",
      parameters: queryParameters(core.ListWebhookDeliveriesInput),
      responses: { "200": ok("A page of attempts", "WebhookAttemptList"), ...errors("NotFound", "ValidationFailed") },
    },
  };
}

/** A path parameter that is an id, with what any other value means. */
const idParameter = (name: string, description: string) => ({ ...ID_PARAMETER, name, description });

/** Workspaces, their members and invitations (CONTRACT §24, docs/teams.md). */
function addWorkspaces({ inputs, outputs, paths }: Parts): void {
  inputs.add(core.CreateWorkspaceInput, { id: "CreateWorkspaceInput" });
  inputs.add(core.UpdateWorkspaceInput, { id: "UpdateWorkspaceInput" });
  inputs.add(core.ChangeMemberRoleInput, { id: "ChangeMemberRoleInput" });
  inputs.add(core.CreateInvitationInput, { id: "CreateInvitationInput" });
  inputs.add(core.AcceptInvitationInput, { id: "AcceptInvitationInput" });
  outputs.add(WorkspaceJson, { id: "Workspace" });
  outputs.add(oneEnvelope(WorkspaceJson), { id: "WorkspaceResponse" });
  outputs.add(createdEnvelope(WorkspaceJson), { id: "WorkspaceCreated" });
  outputs.add(listEnvelope(WorkspaceJson), { id: "WorkspaceList" });
  outputs.add(deletedEnvelope("workspace"), { id: "WorkspaceDeleted" });
  outputs.add(MemberJson, { id: "Member" });
  outputs.add(oneEnvelope(MemberJson), { id: "MemberResponse" });
  outputs.add(listEnvelope(MemberJson), { id: "MemberList" });
  outputs.add(deletedEnvelope("member"), { id: "MemberDeleted" });
  outputs.add(InvitationJson, { id: "Invitation" });
  outputs.add(createdEnvelope(CreatedInvitationJson), { id: "InvitationCreated" });
  outputs.add(listEnvelope(InvitationJson), { id: "InvitationList" });
  outputs.add(deletedEnvelope("invitation"), { id: "InvitationDeleted" });
  const tags = ["Workspaces"];
  const workspaceId = idParameter("id", "The workspace the key acts in; any other id, yours or not, is a 404.");
  const list = queryParameters(core.ListWorkspaceItemsInput);
  paths["/workspaces"] = {
    get: {
      operationId: "listWorkspaces",
      tags,
      summary: "The workspaces you belong to, with your role in each (the personal one first)",
      parameters: list,
      responses: { "200": ok("A page", "WorkspaceList"), ...errors("ValidationFailed") },
    },
    post: {
      operationId: "createWorkspace",
      tags,
      summary: "Create a shared workspace; you are its owner",
      requestBody: body("CreateWorkspaceInput", true),
      responses: { "201": ok("Created", "WorkspaceCreated"), ...errors("ValidationFailed", "PayloadTooLarge", "UnsupportedMediaType") },
    },
  };
  paths["/workspaces/{id}"] = {
    parameters: [workspaceId],
    get: { operationId: "getWorkspace", tags, summary: "The workspace the key acts in", responses: { "200": ok("The workspace", "WorkspaceResponse"), ...errors("NotFound") } },
    patch: {
      operationId: "updateWorkspace",
      tags,
      summary: "Rename it or set require_sso (admins): only the fields sent change",
      requestBody: body("UpdateWorkspaceInput", false),
      responses: { "200": ok("Changed", "WorkspaceResponse"), ...errors("NotFound", "ValidationFailed", "PayloadTooLarge", "UnsupportedMediaType") },
    },
    delete: {
      operationId: "deleteWorkspace",
      tags,
      summary: "Delete it with everything it owns (owners); a personal workspace goes only with its user (409)",
      responses: { "200": ok("Deleted", "WorkspaceDeleted"), ...errors("NotFound"), "409": responseRef("Conflict") },
    },
  };
  paths["/workspaces/{id}/members"] = {
    parameters: [workspaceId],
    get: {
      operationId: "listMembers",
      tags,
      summary: "Its members, in the order they joined",
      parameters: list,
      responses: { "200": ok("A page", "MemberList"), ...errors("NotFound", "ValidationFailed") },
    },
  };
  paths["/workspaces/{id}/members/{user_id}"] = {
    parameters: [workspaceId, idParameter("user_id", "A member's user id; anyone else is a 404.")],
    patch: {
      operationId: "changeMemberRole",
      tags,
      summary: "Give a member another role (admins; making an owner, handing the workspace over, or changing one: owners). The last owner cannot be demoted (409)",
      requestBody: body("ChangeMemberRoleInput", true),
      responses: { "200": ok("Changed", "MemberResponse"), ...errors("NotFound", "ValidationFailed", "PayloadTooLarge", "UnsupportedMediaType"), "409": responseRef("Conflict") },
    },
    delete: {
      operationId: "removeMember",
      tags,
      summary: "Remove a member (admins; an owner: owners), or yourself (leaving). Not the last owner (409)",
      responses: { "200": ok("Removed", "MemberDeleted"), ...errors("NotFound"), "409": responseRef("Conflict") },
    },
  };
  paths["/workspaces/{id}/leave"] = {
    parameters: [workspaceId],
    post: {
      operationId: "leaveWorkspace",
      tags,
      summary: "Leave the workspace (any member; not the last owner: 409)",
      responses: { "200": ok("Left", "MemberDeleted"), ...errors("NotFound"), "409": responseRef("Conflict") },
    },
  };
  paths["/workspaces/{id}/invitations"] = {
    parameters: [workspaceId],
    get: {
      operationId: "listInvitations",
      tags,
      summary: "Its invitations, newest first (admins; never their tokens)",
      parameters: list,
      responses: { "200": ok("A page", "InvitationList"), ...errors("NotFound", "ValidationFailed") },
    },
    post: {
      operationId: "createInvitation",
      tags,
      summary: "Invite someone (admins): a role up to your own, an optional email to mail the link to (when SMTP_URL is set); the token and link are in this answer only, valid once for 7 days",
      requestBody: body("CreateInvitationInput", true),
      responses: { "201": ok("Created, with its link", "InvitationCreated"), ...errors("NotFound", "ValidationFailed", "PayloadTooLarge", "UnsupportedMediaType") },
    },
  };
  paths["/workspaces/{id}/invitations/{invitation_id}"] = {
    parameters: [workspaceId, idParameter("invitation_id", "A waiting invitation of the workspace; any other is a 404.")],
    delete: { operationId: "revokeInvitation", tags, summary: "Revoke a waiting invitation (admins)", responses: { "200": ok("Revoked", "InvitationDeleted"), ...errors("NotFound") } },
  };
  paths["/invitations/accept"] = {
    post: {
      operationId: "acceptInvitation",
      tags,
      summary: "Accept an invitation as the key's user: a member with its role. Unknown, revoked, used or expired: 422 on token; already a member: 409. The key keeps acting in its own workspace",
      requestBody: body("AcceptInvitationInput", true),
      responses: { "200": ok("The workspace joined", "WorkspaceResponse"), ...errors("ValidationFailed", "PayloadTooLarge", "UnsupportedMediaType"), "409": responseRef("Conflict") },
    },
  };
}

/** The caller's account and named keys; users (admin only); the error bodies. */
function addAccountAndUsers({ inputs, outputs, paths }: Parts): void {
  inputs.add(core.CreateUserInput, { id: "CreateUserInput" });
  outputs.add(UserJson, { id: "User" });
  outputs.add(oneEnvelope(UserJson), { id: "UserResponse" });
  outputs.add(createdEnvelope(CreatedUserJson), { id: "UserCreated" });
  outputs.add(listEnvelope(UserJson), { id: "UserList" });
  outputs.add(deletedEnvelope("user"), { id: "UserDeleted" });
  outputs.add(createdEnvelope(ApiKeyJson), { id: "ApiKeyCreated" });
  outputs.add(ErrorJson, { id: "Error" });
  outputs.add(ValidationErrorJson, { id: "ValidationError" });

  inputs.add(core.CreateApiKeyInput, { id: "CreateApiKeyInput" });
  outputs.add(NamedApiKeyJson, { id: "NamedApiKey" });
  outputs.add(createdEnvelope(CreatedNamedApiKeyJson), { id: "NamedApiKeyCreated" });
  outputs.add(listEnvelope(NamedApiKeyJson), { id: "NamedApiKeyList" });
  outputs.add(deletedEnvelope("api_key"), { id: "NamedApiKeyDeleted" });

  const account = ["Account"];
  const admin = ["Users (admin)"];
  outputs.add(oneEnvelope(AccountJson), { id: "AccountResponse" });
  paths["/account"] = {
    get: { operationId: "getAccount", tags: account, summary: "The caller's account, and the workspace the key acts in", responses: { "200": ok("The account", "AccountResponse"), ...errors() } },
  };
  paths["/account/api-key"] = {
    post: {
      operationId: "rotateApiKey",
      tags: account,
      summary: "Issue a new key for the caller and revoke the one used",
      responses: { "201": ok("The new key, shown once", "ApiKeyCreated"), ...errors() },
    },
  };
  paths["/account/api-keys"] = {
    get: {
      operationId: "listApiKeys",
      tags: account,
      summary: "List the named API keys of the workspace the key acts in, each with who made it (expired ones too; never their secrets)",
      parameters: queryParameters(core.ListApiKeysInput),
      responses: { "200": ok("A page", "NamedApiKeyList"), ...errors("ValidationFailed") },
    },
    post: {
      operationId: "createApiKey",
      tags: account,
      summary: `Create a named key with some scopes (${core.API_KEY_SCOPES.join(", ")}; as scopes[]=…, or one string separated by spaces or commas) and an optional expiry in the future; at most ${core.MAX_NAMED_KEYS_PER_USER} a user`,
      requestBody: body("CreateApiKeyInput", true),
      responses: { "201": ok("The key and its secret, shown once", "NamedApiKeyCreated"), ...errors("ValidationFailed", "PayloadTooLarge", "UnsupportedMediaType") },
    },
  };
  paths["/account/api-keys/{id}"] = {
    parameters: [ID_PARAMETER],
    delete: {
      operationId: "deleteApiKey",
      tags: account,
      summary: "Delete one of the workspace's named keys, whoever made it: it stops working at once",
      responses: { "200": ok("Deleted", "NamedApiKeyDeleted"), ...errors("NotFound") },
    },
  };
  paths["/users"] = {
    get: {
      operationId: "listUsers",
      tags: admin,
      summary: "List users",
      parameters: queryParameters(core.ListUsersInput),
      responses: { "200": ok("A page", "UserList"), ...errors("Forbidden", "ValidationFailed") },
    },
    post: {
      operationId: "createUser",
      tags: admin,
      summary: "Create a user and its first API key",
      requestBody: body("CreateUserInput", true),
      responses: { "201": ok("The user and its key, shown once", "UserCreated"), ...errors("Forbidden", "ValidationFailed", "PayloadTooLarge", "UnsupportedMediaType") },
    },
  };
  paths["/users/{id}"] = {
    parameters: [ID_PARAMETER],
    delete: {
      operationId: "deleteUser",
      tags: admin,
      summary: "Delete a user with all their data (not oneself)",
      responses: { "200": ok("Deleted", "UserDeleted"), ...errors("Forbidden", "NotFound") },
    },
  };
  paths["/admin/backup"] = {
    get: {
      operationId: "getBackup",
      tags: admin,
      summary: "A consistent backup of the embedded database (a .tar.gz for `pnpm restore`), streamed",
      description:
        "Admin only (the backup holds every secret of the service). The visitor side's waiting clicks are written first; other requests wait during the copy (well under a second for 100,000 links) and go on after it. The `Shortener-Backup-Counts` header says what the backup holds, counted at the moment of the copy; `pnpm restore FILE` prints the same counts. On PostgreSQL: 409, use pg_dump (docs/backups.md).",
      responses: {
        "200": {
          description: "The backup, gzip-compressed tar",
          headers: {
            ...RATE_HEADERS,
            "Content-Disposition": { description: 'attachment; filename="shortener-backup-YYYYMMDDTHHMMSSZ.tar.gz"', schema: { type: "string" } },
            "Shortener-Backup-Counts": { description: "users=…, api_keys=…, domains=…, links=…, clicks=… at the moment of the copy", schema: { type: "string" } },
          },
          content: { "application/gzip": { schema: { type: "string", contentMediaType: "application/gzip" } } },
        },
        "409": responseRef("Conflict"),
        ...errors("Forbidden"),
      },
    },
  };
}

/** The links' export and QR codes. */
function addLinkTools({ outputs, paths }: Parts): void {
  outputs.add(listEnvelope(TagJson), { id: "TagList" });
  paths["/tags"] = {
    get: {
      operationId: "listTags",
      tags: [RESOURCES.find((r) => r.path === "/links")?.tag ?? "Links"],
      summary: "Your workspace's tags, each with how many links carry it, most used first (one page)",
      description: "Tags match without regard to case: `Sale` and `sale` are one tag, shown as the oldest link spells it. Filter links by tag with `GET /links?tag=a,b` (any of them).",
      responses: { "200": ok("The tags", "TagList"), ...errors() },
    },
  };
  const linkTags = [RESOURCES.find((r) => r.path === "/links")?.tag ?? "Links"];
  paths["/links/export"] = {
    get: {
      operationId: "exportLinks",
      tags: linkTags,
      summary: "Your links as CSV with the import's columns, every list filter applied (streamed)",
      description:
        "The columns are those POST /imports reads, so the file imports again unchanged, then three read-only ones the import ignores: `health`, `health_reason` and `health_checked_at` (the destination's health, CONTRACT §25). `domain` by name, passwords as their stored hashes in `password_hash` and `privacy_password_hash` — only with `include=secrets`, and only for a key with the `links:write` scope (a key without it asking: 403 forbidden). Without `include=secrets` those two columns are empty (a re-import then gives links without passwords) and the `Shortener-Export-Secrets` header says `withheld`. Cells starting with `=`, `+`, `-`, `@`, a tab or a carriage return (or apostrophes then one of those) get a leading apostrophe so spreadsheets do not run them; the importer removes it again for a file with this exact header (or the one before the health columns). Rows in id order (`sort=desc` for the newest first).",
      parameters: queryParameters(core.ExportLinksInput, ["cursor"]),
      responses: {
        "200": {
          description: "CSV, header line first",
          headers: {
            ...RATE_HEADERS,
            "Shortener-Export-Secrets": { description: "`included` (include=secrets) or `withheld` (password-hash columns empty)", schema: { type: "string", enum: ["included", "withheld"] } },
          },
          content: { "text/csv": { schema: { type: "string" } } },
        },
        ...errors("Forbidden", "ValidationFailed"),
      },
    },
  };
  paths["/links/{id}/qr"] = {
    parameters: [ID_PARAMETER],
    get: {
      operationId: "getLinkQr",
      tags: linkTags,
      summary: "A QR code of the link's short_url (SVG by default, PNG with format=png)",
      parameters: queryParameters(core.QrOptionsInput),
      responses: {
        "200": {
          description: "The image; an ETag answers If-None-Match with a 304",
          headers: RATE_HEADERS,
          content: { "image/svg+xml": { schema: { type: "string" } }, "image/png": { schema: { type: "string", contentMediaType: "image/png" } } },
        },
        ...errors("NotFound", "ValidationFailed"),
      },
    },
  };
}

/** A link's statistics, an account's, and a domain's orphan visits (CONTRACT §8, §21). */
function addStats({ outputs, paths }: Parts): void {
  outputs.add(StatRowJson, { id: "StatRow" });
  outputs.add(listEnvelope(StatRowJson), { id: "StatList" });
  outputs.add(StatsSummaryJson, { id: "StatsSummary" });
  outputs.add(oneEnvelope(StatsSummaryJson), { id: "StatsSummaryResponse" });
  outputs.add(DomainVisitsSummaryJson, { id: "DomainVisitsSummary" });
  outputs.add(oneEnvelope(DomainVisitsSummaryJson), { id: "DomainVisitsSummaryResponse" });
  const csv = { "text/csv": { schema: { type: "string" } } };
  const listOrSummary = (description: string, summaryId: string) => ({
    description,
    headers: RATE_HEADERS,
    content: { "application/json": { schema: { oneOf: [ref(summaryId), ref("StatList")] } }, ...csv },
  });
  const csvNote =
    "With `format=csv` (or `Accept: text/csv` and no `format`) the same rows as CSV: `value,count`, plus `unique,bots` for `clicks`, `bots` for `clicks_hour`, `id` for `links`; the summary as one line under its field names. Cells that could run as spreadsheet formulas get a leading apostrophe.";
  paths["/stats/{id}"] = {
    parameters: [{ ...ID_PARAMETER, description: "The id of one of your links; any other value is a 404." }],
    get: {
      operationId: "getStats",
      tags: ["Statistics"],
      summary: "A link's summary, or one series of its clicks, over a range of UTC days (the last 30 by default)",
      description: [
        "`summary`: clicks (people), unique visitors, bots and the first and last click of the range. `clicks` has a row a day (with `unique` and `bots`) and `clicks_hour` a row an hour (with `bots`, at most 31 days), both with every period of the range; `bots` ranks bot names (the top 100, then one `Other` row); the other series rank values by clicks. A series is one page unless `per_page` is given.",
        csvNote,
      ].join("\n\n"),
      parameters: queryParameters(core.LinkStatsQueryInput, ["link_id"]),
      responses: { "200": listOrSummary("The summary (name=summary) or the series", "StatsSummaryResponse"), ...errors("NotFound", "ValidationFailed") },
    },
  };
  paths["/stats"] = {
    get: {
      operationId: "getAccountStats",
      tags: ["Statistics"],
      summary: "Every link of yours at once: the summary, clicks a day, the top 100 links, or a breakdown",
      description: [
        "Read from the account's daily rollups, whatever the number of links. `summary` and `clicks` as for one link; `links`: your 100 links with the most clicks in the range, `value` their short_url; `country`, `platform`, `browser`, `device`, `language`, `referrer` as for one link.",
        csvNote,
      ].join("\n\n"),
      parameters: queryParameters(core.AccountStatsInput),
      responses: { "200": listOrSummary("The summary (name=summary) or the series", "StatsSummaryResponse"), ...errors("ValidationFailed") },
    },
  };
  paths["/domains/{id}/visits"] = {
    parameters: [{ ...ID_PARAMETER, description: "The id of one of your domains; any other value is a 404." }],
    get: {
      operationId: "getDomainVisits",
      tags: ["Statistics", "Domains"],
      summary: "Orphan visits of a domain: its /, unknown aliases, disabled and expired links (never clicks)",
      description: [
        "`summary`: people by kind and bots; `clicks`: a row a day, `count` the people, `bots` the bots; `alias`: the 100 unknown aliases tried most (cut to 255 characters).",
        csvNote,
      ].join("\n\n"),
      parameters: queryParameters(core.DomainVisitsInput, ["id"]),
      responses: { "200": listOrSummary("The summary (name=summary) or the series", "DomainVisitsSummaryResponse"), ...errors("NotFound", "ValidationFailed") },
    },
  };
}

/** CSV imports (CONTRACT §12). */
/** The workspace's audit log (CONTRACT §24, docs/audit.md). */
function addAudit({ outputs, paths }: Parts): void {
  outputs.add(AuditEntryJson, { id: "AuditEntry" });
  outputs.add(listEnvelope(AuditEntryJson), { id: "AuditEntryList" });
  paths["/audit"] = {
    get: {
      operationId: "listAudit",
      tags: ["Audit"],
      summary: "The workspace's audit log, newest first (admins and owners)",
      description:
        "Every change made in the workspace, one entry each, written in the transaction of the change and never changed or deleted by the service (only AUDIT_RETENTION_DAYS ends them). Filters: actor (a user id), object_type and object_id (object_id needs object_type), action, from and to (a UTC day YYYY-MM-DD, whole days, or an ISO-8601 date and time). With Accept: text/csv, every matching entry as CSV (columns id, created_at, action, object_type, object_id, actor_user_id, actor_key_id, actor_session_id, client_group, changes as JSON), page and per_page ignored. A viewer or editor of the workspace: 403.",
      parameters: queryParameters(core.ListAuditInput),
      responses: {
        "200": {
          ...ok("A page, or with Accept: text/csv the whole CSV", "AuditEntryList"),
          content: { "application/json": { schema: ref("AuditEntryList") }, "text/csv": { schema: { type: "string" } } },
        },
        ...errors("Forbidden", "ValidationFailed"),
      },
    },
  };
}

function addImports({ outputs, paths }: Parts): void {
  outputs.add(ImportJson, { id: "ImportJob" });
  outputs.add(oneEnvelope(ImportJson), { id: "ImportResponse" });
  outputs.add(acceptedEnvelope(ImportJson), { id: "ImportAccepted" });
  outputs.add(listEnvelope(ImportJson), { id: "ImportList" });
  const imports = ["Imports"];
  const importDomain = inputProperty(core.CreateImportInput, "domain_id");
  const importFormat = inputProperty(core.CreateImportInput, "format");
  paths["/imports"] = {
    get: {
      operationId: "listImports",
      tags: imports,
      summary: "List your import jobs",
      parameters: queryParameters(core.ListImportsInput),
      responses: { "200": ok("A page", "ImportList"), ...errors("ValidationFailed") },
    },
    post: {
      operationId: "createImport",
      tags: imports,
      summary: "Upload a CSV of links: a job that a worker runs",
      description:
        "A UTF-8 CSV with a header row (columns named like the link fields: url, alias, domain or domain_id, title, password, space_id, pixel_ids separated by ';', tags separated by ';', disabled, privacy, privacy_password, expiration_url, expiration_date, expiration_time, expiration_clicks, og_title, og_description, og_image), as a text/csv body or as the multipart field `file`. Each row is checked like POST /links; good rows are imported, bad rows reported with their line. The same Idempotency-Key again answers 200 with the same job and queues nothing. The dashboard sends its session cookie instead of a key, with the session's x-csrf-token header (without it: 403).",
      parameters: [
        { name: "domain_id", in: "query", required: false, description: "The domain of rows that name none.", schema: importDomain },
        {
          name: "format",
          in: "query",
          required: false,
          description:
            "How the file is read: csv (the default, the columns above) or another service's own export file, read as that service writes it (bitly, rebrandly, shortio, dub, shlink, yourls, kutt, phpshort; docs/migrating.md). A header without the columns its format needs: 422 on file naming them. An unknown format: 422 on format listing the formats.",
          schema: importFormat,
        },
        { name: "Idempotency-Key", in: "header", required: false, description: "Printable ASCII, at most 255 characters.", schema: inputProperty(core.CreateImportInput, "idempotency_key") },
      ],
      requestBody: {
        required: true,
        content: {
          "text/csv": { schema: { type: "string" } },
          "multipart/form-data": {
            schema: { type: "object", required: ["file"], properties: { file: { type: "string", contentMediaType: "text/csv" }, domain_id: importDomain, format: importFormat } },
          },
        },
      },
      responses: {
        "202": ok("Queued", "ImportAccepted"),
        "200": ok("The job this Idempotency-Key created before", "ImportResponse"),
        ...errors("BadRequest", "ValidationFailed", "FileTooLarge", "UnsupportedMediaType"),
      },
    },
  };
  paths["/imports/{id}"] = {
    parameters: [ID_PARAMETER],
    get: { operationId: "getImport", tags: imports, summary: "One import job, with its first 1000 row errors", responses: { "200": ok("The job", "ImportResponse"), ...errors("NotFound") } },
  };
  paths["/imports/{id}/errors"] = {
    parameters: [ID_PARAMETER],
    get: {
      operationId: "getImportErrors",
      tags: imports,
      summary: "Every row error of a job, as CSV (line,field,message)",
      description: "The dashboard's session cookie is accepted here too, instead of a key.",
      responses: { "200": { description: "CSV, header line first", headers: RATE_HEADERS, content: { "text/csv": { schema: { type: "string" } } } }, ...errors("NotFound") },
    },
  };
}

/** This document itself. */
function addMeta({ paths }: Parts): void {
  paths["/openapi.json"] = {
    get: {
      operationId: "getOpenApiDocument",
      tags: ["Meta"],
      summary: "This document (no key needed; rendered at /api/docs)",
      security: [],
      responses: { "200": { description: "OpenAPI 3.1", content: { "application/json": { schema: { type: "object" } } } } },
    },
  };
}

/** The document around the paths: info, servers, tags, security, and the shared components. */
function frame({ inputs, outputs, paths }: Parts): Json {
  const error = (description: string, schemaId = "Error", headers: Json = RATE_HEADERS) => ({ description, headers, content: { "application/json": { schema: ref(schemaId) } } });
  const integerHeader = (description: string) => ({ description, schema: { type: "integer", minimum: 0 } });

  return {
    openapi: "3.1.0",
    info: {
      title: "Shortener REST API",
      version: "1.0.0",
      description:
        'phpShort-compatible link API. Every operation takes an API key (Authorization: Bearer shk_…), except this document; each names the scope it needs (security, x-scopes): the user key of POST /users or /account/api-key has every scope, a named key of /account/api-keys only those it was given. Bodies are application/x-www-form-urlencoded with bracket notation (country[0][key]=US, pixel_ids[]=3) or application/json with the same field names; an empty value means "not set" on create and "clear it" on update. Every response carries X-RateLimit-Limit and X-RateLimit-Remaining.',
    },
    servers: [{ url: "/api/v1" }],
    security: [{ bearer: [] }],
    tags: [
      ...RESOURCES.map((r) => ({ name: r.tag })),
      { name: "Statistics" },
      { name: "Imports" },
      { name: "Webhooks" },
      { name: "Account" },
      { name: "Workspaces" },
      { name: "Users (admin)" },
      { name: "Audit" },
      { name: "Meta" },
    ],
    paths,
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "An API key (shk_…), in the Authorization header only" } },
      schemas: { ...toSchemas(inputs, "input"), ...toSchemas(outputs, "output") },
      headers: {
        "X-RateLimit-Limit": integerHeader("Requests a minute for this key (or, on a 401, failed authentications a minute for this address)"),
        "X-RateLimit-Remaining": integerHeader("Requests left in the current minute"),
        "Retry-After": integerHeader("Seconds until the limit resets"),
        "X-RateLimit-Reset": integerHeader("When the limit resets, in epoch seconds"),
      },
      responses: {
        Unauthenticated: error("Missing, malformed, unknown or revoked API key"),
        Forbidden: error("The API key lacks the scope this operation needs; or reserved for administrators, or not allowed on oneself"),
        NotFound: error("No such resource among yours"),
        Conflict: error("Not possible now: a backup of a service on PostgreSQL (use pg_dump); the last owner leaving or demoted; a personal workspace deleted; joining a workspace twice"),
        ValidationFailed: error("Every failing field at once", "ValidationError"),
        BadRequest: error("A malformed body: invalid JSON, a form too deeply nested, more than one file"),
        PayloadTooLarge: error("The body is over 1 MiB"),
        FileTooLarge: error("The file is larger than IMPORT_MAX_BYTES (50 MiB by default)"),
        UnsupportedMediaType: error("A body of a type this route does not take (form-encoded or JSON; text/csv or multipart for imports)"),
        TooManyRequests: error("Too Many Attempts.", "Error", {
          ...RATE_HEADERS,
          "Retry-After": { $ref: "#/components/headers/Retry-After" },
          "X-RateLimit-Reset": { $ref: "#/components/headers/X-RateLimit-Reset" },
        }),
      },
    },
  };
}

/** The scope (CONTRACT §17) and role (CONTRACT §24) a registered route declares, by method and URL pattern (`/api/v1/links/:id`). */
export type ScopeOf = (method: string, url: string) => { scope: RouteScope | undefined; role: RouteRole | undefined } | undefined;

/**
 * Each operation's scope, read from the route that serves it (the one place it is declared,
 * http/routes.ts): as a security requirement with that scope, as `x-scopes`, and in its description.
 * Operations without a key (`public`) get no security requirement. Every operation can then answer 403.
 */
function withScopes(document: Json, scopeOf: ScopeOf): Json {
  const paths = document.paths as Record<string, Json>;
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!["get", "post", "put", "patch", "delete"].includes(method)) continue;
      const op = operation as Json;
      const access = scopeOf(method.toUpperCase(), `/api/v1${path.replace(/\{([A-Za-z_]+)\}/g, ":$1")}`);
      const scope = access?.scope;
      if (!scope) continue;
      if (scope === "public") {
        op.security = [];
        op["x-scopes"] = [];
        continue;
      }
      op.security = [{ bearer: [scope] }];
      op["x-scopes"] = [scope];
      const role = access.role;
      if (role) op["x-role"] = role;
      const roleSentence =
        role === "instance-admin"
          ? "Reserved for the instance's administrators (anyone else: 403 forbidden)."
          : role
            ? `Needs at least the \`${role}\` role in the workspace the key acts in (a lower role: 403 forbidden).`
            : undefined;
      op.description = [op.description, `Needs an API key with the \`${scope}\` scope (a key without it: 403 forbidden).`, roleSentence].filter(Boolean).join("\n\n");
      op.responses = { ...(op.responses as Json), "403": responseRef("Forbidden") };
    }
  }
  return document;
}

const documents = new WeakMap<ScopeOf, Json>();

/**
 * The OpenAPI 3.1 document of the REST API, generated from the zod schemas both transports use, with
 * each operation's scope as its route declares it (`scopeOf`, from the app's registered routes).
 */
export function getOpenApiDocument(scopeOf: ScopeOf): Json {
  let document = documents.get(scopeOf);
  if (!document) documents.set(scopeOf, (document = withScopes(buildDocument(), scopeOf)));
  return document;
}
