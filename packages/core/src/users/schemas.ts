import { z } from "zod";
import { PageParams } from "../lists/pagination.ts";
import { displayNameField } from "../validation/display-name.ts";
import { defaulted, idField, onCreate, stringEnumField, textField } from "../validation/fields.ts";

export const CreateUserInput = z.object({
  email: z
    .string({ error: "The email field is required." })
    .trim()
    .toLowerCase()
    .max(255, { error: "The email must not be greater than 255 characters." })
    .pipe(z.email({ error: "The email must be a valid email address." })),
  name: displayNameField("name", 1, 255),
});
export type CreateUserInput = z.input<typeof CreateUserInput>;

export const ListUsersInput = z.object({
  ...PageParams,
  search: onCreate(textField("search", 0, 255)),
  search_by: defaulted(stringEnumField("search by", ["email", "name"]), "email"),
  sort_by: defaulted(stringEnumField("sort by", ["id", "email", "name"]), "id"),
});
export type ListUsersInput = z.input<typeof ListUsersInput>;

export const UserIdInput = z.object({ id: idField("id") });
export type UserIdInput = z.input<typeof UserIdInput>;
