/** The closed set of error codes core speaks. Adapters map each to their transport (apps/api/src/errors.ts). */
export const CORE_ERROR_CODES = ["NOT_FOUND", "CONFLICT", "VALIDATION", "FORBIDDEN", "LIMIT_EXCEEDED", "INTERNAL"] as const;
export type CoreErrorCode = (typeof CORE_ERROR_CODES)[number];

export class CoreError extends Error {
  readonly code: CoreErrorCode;
  /**
   * A finer reason within the code, for a caller that acts differently on it (`sso_required`: send the
   * person to single sign-on); adapters answer it as their slug instead of the code's own.
   */
  readonly reason: string | undefined;
  constructor(code: CoreErrorCode, message: string, options?: { cause?: unknown; reason?: string }) {
    super(message, options);
    this.name = "CoreError";
    this.code = code;
    this.reason = options?.reason;
  }
}

/** Field → sentences, phpShort's 422 shape. */
export type FieldErrors = Record<string, string[]>;

export class ValidationError extends CoreError {
  readonly fields: FieldErrors;
  constructor(fields: FieldErrors) {
    const first = Object.values(fields)[0]?.[0] ?? "The given data was invalid.";
    super("VALIDATION", first);
    this.name = "ValidationError";
    this.fields = fields;
  }

  static field(field: string, message: string): ValidationError {
    return new ValidationError({ [field]: [message] });
  }
}

export class NotFoundError extends CoreError {
  constructor(entity: string) {
    super("NOT_FOUND", `${entity} not found.`);
    this.name = "NotFoundError";
  }
}

export class ForbiddenError extends CoreError {
  constructor(message: string) {
    super("FORBIDDEN", message);
    this.name = "ForbiddenError";
  }
}

/** A workspace that requires single sign-on, reached from a session that did not use it (CONTRACT §24): 403 `sso_required`. */
export class SsoRequiredError extends CoreError {
  constructor(workspaceName: string) {
    super("FORBIDDEN", `The workspace ${JSON.stringify(workspaceName.slice(0, 100))} requires single sign-on: sign in with it to act there.`, { reason: "sso_required" });
    this.name = "SsoRequiredError";
  }
}

export class ConflictError extends CoreError {
  constructor(message: string) {
    super("CONFLICT", message);
    this.name = "ConflictError";
  }
}

export class LimitExceededError extends CoreError {
  constructor(message: string) {
    super("LIMIT_EXCEEDED", message);
    this.name = "LimitExceededError";
  }
}
