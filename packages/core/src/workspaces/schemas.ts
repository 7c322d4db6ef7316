import { z } from "zod";
import { PageParams } from "../lists/pagination.ts";
import { displayNameField, notOneOfMessage } from "../validation/display-name.ts";
import { onCreate, textField } from "../validation/fields.ts";
import { WORKSPACE_ROLES } from "./roles.ts";

/** A workspace's name: 1–100 characters after trimming, nothing that displays badly (CONTRACT §15). */
export const WORKSPACE_NAME_MAX = 100;
/** A person's name on the invitation's sign-up, as a user's (CONTRACT §9). */
export const PERSON_NAME_MAX = 255;

const trimmed = (v: unknown) => (typeof v === "string" ? v.trim() : v);
const workspaceName = z.preprocess(trimmed, displayNameField("name", 1, WORKSPACE_NAME_MAX)) as unknown as z.ZodType<string, string>;

/** `viewer`, `editor`, `admin` or `owner`; anything else names the field and the four. */
const role = z.enum(WORKSPACE_ROLES, {
  error: (issue) => (issue.input === undefined || issue.input === null ? "The role field is required." : notOneOfMessage("role", issue.input, WORKSPACE_ROLES)),
});

const email = z
  .string({ error: "The email must be a string." })
  .trim()
  .toLowerCase()
  .max(255, { error: "The email must not be greater than 255 characters." })
  .pipe(z.email({ error: "The email must be a valid email address." }));

/** The token of an invitation link: what `/app/invite/{token}` carries (43 URL-safe characters). */
const token = z.string({ error: "The token field is required." }).trim().min(1, { error: "The token field is required." }).max(128, { error: "The invitation is unknown or was revoked." });

/** Absent or blank: "The name field is required." */
export const CreateWorkspaceInput = z.object({ name: z.preprocess((v: string) => (v === undefined || v === null ? "" : v), workspaceName) });
export type CreateWorkspaceInput = z.input<typeof CreateWorkspaceInput>;

const FLAG_MESSAGE = "The require sso must be true or false (1 or 0).";
/** A flag as forms and JSON send it: `true`/`false`, `1`/`0` (strings or numbers). */
const flag = z.preprocess(
  (v: boolean) => {
    const value = v as unknown;
    if (value === 1 || value === "1" || value === "true") return true;
    if (value === 0 || value === "0" || value === "false") return false;
    return value;
  },
  z.boolean({ error: FLAG_MESSAGE }),
);

/** Only the fields sent change. */
export const UpdateWorkspaceInput = z.object({
  name: workspaceName.optional(),
  require_sso: flag.optional(),
});
export type UpdateWorkspaceInput = z.input<typeof UpdateWorkspaceInput>;

export const ListWorkspaceItemsInput = z.object({ page: PageParams.page, per_page: PageParams.per_page });
export type ListWorkspaceItemsInput = z.input<typeof ListWorkspaceItemsInput>;

export const ChangeMemberRoleInput = z.object({ role });
export type ChangeMemberRoleInput = z.input<typeof ChangeMemberRoleInput>;

/** An invitation: its role (at most the inviter's own) and, to mail it, an address. */
export const CreateInvitationInput = z.object({ role, email: onCreate(email) });
export type CreateInvitationInput = z.input<typeof CreateInvitationInput>;

/** Accepting as the signed-in caller. */
export const AcceptInvitationInput = z.object({ token });
export type AcceptInvitationInput = z.input<typeof AcceptInvitationInput>;

/** Accepting as a new person: the account to create (as a sign-up), then the membership. */
export const AcceptInvitationAsNewUserInput = z.object({
  token,
  name: z.preprocess(trimmed, displayNameField("name", 1, PERSON_NAME_MAX)) as unknown as z.ZodType<string, string>,
  email: z.preprocess((v) => v ?? undefined, z.string({ error: "The email field is required." }).pipe(email)) as unknown as z.ZodType<string, string>,
  password: textField("password", 10, 128),
});
export type AcceptInvitationAsNewUserInput = z.input<typeof AcceptInvitationAsNewUserInput>;
