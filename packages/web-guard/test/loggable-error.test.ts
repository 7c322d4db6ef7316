import { describe, expect, it } from "vitest";
import { loggableError } from "../src/index.ts";

class DrizzleQueryError extends Error {
  constructor(
    readonly query: string,
    readonly params: unknown[],
    cause?: unknown,
  ) {
    super(`Failed query: ${query}\nparams: ${params.join(",")}`);
    this.cause = cause;
  }
}

describe("loggableError", () => {
  it("drops the parameters drizzle puts in its message, and keeps the SQL with its placeholders", () => {
    const cause = Object.assign(new Error('invalid input syntax for type integer: "shk_SECRETKEY"'), {
      code: "22P02",
      severity: "ERROR",
      detail: "Key (x)=(scrypt$16384$SECRET)",
      parameters: ["scrypt$16384$SECRET"],
    });
    const error = new DrizzleQueryError("insert into links (password_hash) values ($1)", ["scrypt$16384$SECRET", "shk_SECRETKEY"], cause);
    const out = loggableError(error) as Record<string, any>;
    const text = JSON.stringify(out);
    expect(text).not.toContain("SECRET");
    expect(out.type).toBe("DrizzleQueryError");
    expect(out.message).toBe("Failed query: insert into links (password_hash) values ($1)");
    expect(out.query).toBe("insert into links (password_hash) values ($1)");
    expect(out.stack).toContain("loggable-error.test.ts");
    expect(out.cause).toMatchObject({ type: "Error", message: 'invalid input syntax for type integer: "[redacted]"', code: "22P02", severity: "ERROR" });
    expect(out.cause.detail).toBeUndefined();
    expect(out.cause.parameters).toBeUndefined();
  });

  it.each([
    ["a string", "boom", "boom"],
    ["undefined", undefined, undefined],
    ["a plain object", { a: 1 }, { a: 1 }],
  ])("passes %s through", (_name, value, expected) => {
    expect(loggableError(value)).toEqual(expected);
  });

  it("replaces a cause that is not an error, and stops at five causes deep", () => {
    expect((loggableError(new Error("x", { cause: "password=hunter2" })) as any).cause).toBe("[not an error]");
    let error: Error = new Error("0");
    for (let i = 1; i < 10; i++) error = new Error(String(i), { cause: error });
    let out = loggableError(error) as any;
    let depth = 0;
    while (out.cause) {
      out = out.cause;
      depth++;
    }
    expect(depth).toBe(5);
  });
});
