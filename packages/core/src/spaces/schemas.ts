import { z } from "zod";
import { NamedListParams } from "../lists/pagination.ts";
import { displayNameField } from "../validation/display-name.ts";
import { defaulted, intField, onCreate } from "../validation/fields.ts";

const color = intField("color", { min: 1, max: 6 });

export const CreateSpaceShape = {
  name: z
    .string({ error: "The name field is required." })
    .trim()
    .pipe(displayNameField("name", 1, 32)),
  color: defaulted(color, 1),
};
export const CreateSpaceInput = z.object(CreateSpaceShape);
export type CreateSpaceInput = z.input<typeof CreateSpaceInput>;

export const UpdateSpaceShape = {
  name: onCreate(
    z
      .string({ error: "The name must be a string." })
      .trim()
      .pipe(displayNameField("name", 1, 32)),
  ),
  color: onCreate(color),
};
export const UpdateSpaceInput = z.object(UpdateSpaceShape);
export type UpdateSpaceInput = z.input<typeof UpdateSpaceInput>;

export const ListSpacesInput = z.object(NamedListParams);
export type ListSpacesInput = z.input<typeof ListSpacesInput>;
