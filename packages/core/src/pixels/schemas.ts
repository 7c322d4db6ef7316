import { z } from "zod";
import { PIXEL_TYPES } from "./pixel-types.ts";
import { NamedListParams } from "../lists/pagination.ts";
import { displayNameField } from "../validation/display-name.ts";
import { onCreate, stringEnumField, textField } from "../validation/fields.ts";

const name = z
  .string({ error: "The name field is required." })
  .trim()
  .pipe(displayNameField("name", 1, 255));
const type = stringEnumField("type", PIXEL_TYPES);
const value = textField("value", 1, 255).regex(/^[A-Za-z0-9_-]+$/, { error: "The value may only contain letters, numbers, dashes and underscores." });

export const CreatePixelShape = {
  name,
  type: z.string({ error: "The type field is required." }).pipe(type),
  value: z.string({ error: "The value field is required." }).pipe(value),
};
export const CreatePixelInput = z.object(CreatePixelShape);
export type CreatePixelInput = z.input<typeof CreatePixelInput>;

export const UpdatePixelShape = { name: onCreate(name), type: onCreate(type), value: onCreate(value) };
export const UpdatePixelInput = z.object(UpdatePixelShape);
export type UpdatePixelInput = z.input<typeof UpdatePixelInput>;

export const ListPixelsInput = z.object(NamedListParams);
export type ListPixelsInput = z.input<typeof ListPixelsInput>;
