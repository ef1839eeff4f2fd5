import { describe, expect, it } from "vitest";
import { idFromLiteral } from "../../../src/rpc/id_from_literal.ts";
import { MAX_ID_LENGTH } from "../../../src/wire/json_rpc_message.ts";

describe("idFromLiteral", () => {
  it("reads string and finite number ids; anything else is undefined", () => {
    expect(idFromLiteral("7")).toBe(7);
    expect(idFromLiteral('"a"')).toBe("a");
    expect(idFromLiteral(undefined)).toBeUndefined();
    expect(idFromLiteral("null")).toBeUndefined();
    expect(idFromLiteral("{")).toBeUndefined();
    expect(idFromLiteral(`"${"x".repeat(MAX_ID_LENGTH)}"`)).toBeUndefined();
  });
});
