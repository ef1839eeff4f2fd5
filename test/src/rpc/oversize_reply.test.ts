import { describe, expect, it } from "vitest";
import { failOversizeReply } from "../../../src/rpc/oversize_reply.ts";
import type { PendingCalls } from "../../../src/rpc/pending_calls.ts";
import { MessageTooLargeError } from "../../../src/wire/errors.ts";

function calls(size: number) {
  const failed: [unknown, Error][] = [];
  const fake = {
    size,
    fail: (id: unknown, error: Error) => (failed.push([id, error]), true),
  } as unknown as PendingCalls;
  return { fake, failed };
}

describe("failOversizeReply", () => {
  const error = new MessageTooLargeError(10, { sizeBytes: 20 });

  it("fails the call the reply answers, with the size and the limit", () => {
    const { fake, failed } = calls(1);
    const faults: Error[] = [];
    failOversizeReply({ kind: "oversize_reply", id: 7, error }, {
      calls: fake,
      fault: (e) => faults.push(e),
    });
    expect(failed).toHaveLength(1);
    expect(failed[0]![0]).toBe(7);
    expect(failed[0]![1]).toBeInstanceOf(MessageTooLargeError);
    expect(faults).toEqual([]);
  });

  it("without a readable id: a fault when calls wait, nothing when none does", () => {
    const faults: Error[] = [];
    failOversizeReply({ kind: "oversize_reply", id: undefined, error }, {
      calls: calls(0).fake,
      fault: (e) => faults.push(e),
    });
    expect(faults).toEqual([]);
    failOversizeReply({ kind: "oversize_reply", id: undefined, error }, {
      calls: calls(2).fake,
      fault: (e) => faults.push(e),
    });
    expect(faults).toHaveLength(1);
    expect(faults[0]).toBeInstanceOf(MessageTooLargeError);
  });
});
