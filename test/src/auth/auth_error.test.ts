import { describe, expect, it } from "vitest";
import { AuthError } from "../../../src/auth/mod.ts";

describe("AuthError", () => {
  it("keeps its code, message and cause, and answers instanceof for an error of another copy of the package", () => {
    const cause = new Error("inner");
    const error = new AuthError("token", "The token request failed", { cause });
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      code: "token",
      name: "AuthError",
      message: "The token request failed",
      cause,
    });
    const foreign = Object.assign(new Error("x"), { code: "token" });
    Object.defineProperty(foreign, Symbol.for("onemodelcontext.authError"), { value: true });
    expect(foreign instanceof AuthError).toBe(true);
    expect(new Error("plain") instanceof AuthError).toBe(false);
  });
});
