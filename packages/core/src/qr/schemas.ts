import { z } from "zod";
import { defaulted, intField, stringEnumField } from "../validation/fields.ts";

export const QR_FORMATS = ["svg", "png"] as const;
export type QrFormat = (typeof QR_FORMATS)[number];
export const QR_ECC_LEVELS = ["L", "M", "Q", "H"] as const;
export type QrEcc = (typeof QR_ECC_LEVELS)[number];
export const QR_MIN_SIZE = 64;
export const QR_MAX_SIZE = 2048;
export const QR_MAX_MARGIN = 16;

/**
 * CONTRACT §17: how a link's QR code is drawn. `size` is the image's width and height in pixels, the
 * quiet zone included; `margin` is that quiet zone in modules (the code's squares), not pixels.
 */
export const QrOptionsInput = z.object({
  format: defaulted(stringEnumField("format", QR_FORMATS), "svg"),
  size: defaulted(intField("size", { min: QR_MIN_SIZE, max: QR_MAX_SIZE }), 512),
  margin: defaulted(intField("margin", { min: 0, max: QR_MAX_MARGIN }), 2),
  ecc: defaulted(z.preprocess((v) => (typeof v === "string" ? v.trim().toUpperCase() : v), stringEnumField("ecc", QR_ECC_LEVELS)) as unknown as z.ZodType<QrEcc, QrEcc>, "M"),
});
export type QrOptionsInput = z.input<typeof QrOptionsInput>;
export type QrOptions = z.output<typeof QrOptionsInput>;
