import { describe, expect, it } from "vitest";
import { endError } from "../../../src/rpc/end_error.ts";
import type { Duplex } from "../../../src/stream/duplex.ts";
import { ClosedError } from "../../../src/wire/errors.ts";

describe("endError", () => {
  it("prefers the transport's own account, then the fallback, then a ClosedError", () => {
    const own = new Error("Exited");
    expect(endError({ closeError: () => own } as unknown as Duplex)).toBe(own);
    const fallback = new Error("Fallback");
    expect(endError({ closeError: () => undefined } as unknown as Duplex, fallback)).toBe(fallback);
    expect(endError({} as Duplex)).toBeInstanceOf(ClosedError);
  });
});
