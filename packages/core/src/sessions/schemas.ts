import { z } from "zod";
import { onCreate, textField } from "../validation/fields.ts";

/** Dashboard sign-in with email and password (CONTRACT §19). */
export const PasswordSignInInput = z.object({
  email: textField("email", 1, 255).trim(),
  password: textField("password", 1, 128),
});
export type PasswordSignInInput = z.input<typeof PasswordSignInInput>;

/** The one-time sign-in of a user who has no password yet: with an API key, then a password is set. */
export const KeySignInInput = z.object({ api_key: textField("api key", 1, 256).trim() });
export type KeySignInInput = z.input<typeof KeySignInInput>;

/** A new dashboard password; `current_password` is required once the user has one. */
export const SetPasswordInput = z.object({
  current_password: onCreate(textField("current password", 0, 128)),
  password: textField("password", 10, 128),
});
export type SetPasswordInput = z.input<typeof SetPasswordInput>;
