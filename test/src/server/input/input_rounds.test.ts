import { describe, expect, it } from "vitest";
import {
  type InputContext,
  type InputRequiredOutcome,
  InputRequiredSignal,
  type InputRoundRequest,
  InputRounds,
} from "../../../../src/server/input/input_rounds.ts";
import { runModernRound } from "../../../../src/server/input/modern_round.ts";
import { RequestStateCodec } from "../../../../src/server/input/request_state.ts";
import { RequestStateError } from "../../../../src/server/input/request_state_error.ts";
import { JsonRpcError, ProtocolError, TimeoutError } from "../../../../src/wire/errors.ts";
import { FakeTimeProvider, flushMicrotasks } from "../../../../testing/fake_time_provider.ts";

const KEY = "0f".repeat(32);
const ALL = { elicitation: {}, sampling: {}, roots: {} };
const NAME_SCHEMA = {
  type: "object" as const,
  properties: { name: { type: "string" as const } },
  required: ["name"],
};
const ACCEPT = (content: Record<string, unknown>) => ({ action: "accept", content });
const SAMPLED = (text: string) => ({
  role: "assistant",
  content: { type: "text", text },
  model: "m",
  stopReason: "endTurn",
});
const ROOTS = { roots: [{ uri: "file:///r", name: "R" }] };

function setup(time = new FakeTimeProvider()) {
  const rounds = new InputRounds({
    codec: new RequestStateCodec({ key: KEY, timeProvider: time }),
    timeProvider: time,
  });
  return { rounds, time };
}

function modern(params: Record<string, unknown>, extra: Partial<InputRoundRequest> = {}): InputRoundRequest {
  return { era: "modern", method: "tools/call", params, clientCapabilities: ALL, ...extra };
}

function asInputRequired(value: unknown): InputRequiredOutcome {
  expect(value).toMatchObject({ resultType: "input_required" });
  return value as InputRequiredOutcome;
}

async function rejection<T extends Error>(
  promise: Promise<unknown>,
  type: new (...args: never[]) => T,
): Promise<T> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(type);
    return error as T;
  }
  throw new Error("expected a rejection");
}

const greet = async (input: InputContext) => {
  const answer = await input.elicit({ message: "What is your name?", requestedSchema: NAME_SCHEMA }, {
    key: "user_name",
  });
  return { text: `Hello, ${(answer.content as { name: string }).name}!` };
};

describe("InputRounds, modern era", () => {
  it("an unanswered ask ends the round with input_required under the given key; the retry completes", async () => {
    const { rounds } = setup();
    const params = { name: "greet", arguments: {} };
    const first = asInputRequired(await rounds.run(modern(params), greet));
    expect(first.inputRequests).toEqual({
      user_name: {
        method: "elicitation/create",
        params: { message: "What is your name?", requestedSchema: NAME_SCHEMA },
      },
    });
    expect(typeof first.requestState).toBe("string");
    const retry = {
      ...params,
      inputResponses: { user_name: ACCEPT({ name: "Alice" }) },
      requestState: first.requestState,
    };
    expect(await rounds.run(modern(retry), greet)).toEqual({ text: "Hello, Alice!" });
  });

  it("calls made before the handler settles are asked in one round, with deterministic default keys", async () => {
    const { rounds } = setup();
    let runs = 0;
    const handler = async (input: InputContext) => {
      runs++;
      const [who, hi, roots] = await Promise.all([
        input.elicit({ message: "Name?", requestedSchema: NAME_SCHEMA }),
        input.sample({
          messages: [{ role: "user", content: { type: "text", text: "Greet" } }],
          maxTokens: 50,
        }),
        input.listRoots(),
      ]);
      return [who.action, (hi.content as { text: string }).text, roots.roots.length];
    };
    const first = asInputRequired(await rounds.run(modern({ name: "x" }), handler));
    expect(Object.keys(first.inputRequests)).toEqual(["elicit-0", "sample-1", "roots-2"]);
    expect(first.inputRequests["sample-1"].method).toBe("sampling/createMessage");
    expect(first.inputRequests["roots-2"]).toEqual({ method: "roots/list" });
    const done = await rounds.run(
      modern({
        name: "x",
        requestState: first.requestState,
        inputResponses: {
          "elicit-0": ACCEPT({ name: "A" }),
          "sample-1": SAMPLED("Hello there!"),
          "roots-2": ROOTS,
        },
      }),
      handler,
    );
    expect(done).toEqual(["accept", "Hello there!", 1]);
    expect(runs).toBe(2);
  });

  it("several rounds: earlier answers ride in the state, each round gets a new state, round counts up", async () => {
    const { rounds } = setup();
    const seen: number[] = [];
    const handler = async (input: InputContext) => {
      seen.push(input.round);
      const a = await input.elicit({ message: "Step 1", requestedSchema: NAME_SCHEMA }, { key: "step1" });
      const b = await input.elicit({ message: "Step 2", requestedSchema: NAME_SCHEMA }, { key: "step2" });
      return `${a.content?.name}/${b.content?.name}`;
    };
    const params = { name: "multi" };
    const r1 = asInputRequired(await rounds.run(modern(params), handler));
    expect(Object.keys(r1.inputRequests)).toEqual(["step1"]);
    const r2 = asInputRequired(
      await rounds.run(
        modern({
          ...params,
          requestState: r1.requestState,
          inputResponses: { step1: ACCEPT({ name: "Alice" }) },
        }),
        handler,
      ),
    );
    expect(Object.keys(r2.inputRequests)).toEqual(["step2"]);
    expect(r2.requestState).not.toBe(r1.requestState);
    const r3 = await rounds.run(
      modern({
        ...params,
        requestState: r2.requestState,
        inputResponses: { step2: ACCEPT({ name: "blue" }) },
      }),
      handler,
    );
    expect(r3).toBe("Alice/blue");
    expect(seen).toEqual([0, 1, 2]);
  });

  it("a missing answer is asked again, with or without state, and extra keys are ignored", async () => {
    const { rounds } = setup();
    const params = { name: "greet" };
    const wrongKey = asInputRequired(
      await rounds.run(modern({ ...params, inputResponses: { wrong_key: ACCEPT({ data: "x" }) } }), greet),
    );
    expect(Object.keys(wrongKey.inputRequests)).toEqual(["user_name"]);
    const again = asInputRequired(
      await rounds.run(modern({ ...params, requestState: wrongKey.requestState, inputResponses: {} }), greet),
    );
    expect(Object.keys(again.inputRequests)).toEqual(["user_name"]);
    const extra = await rounds.run(
      modern({
        ...params,
        inputResponses: {
          user_name: ACCEPT({ name: "Bo" }),
          unknown_extra_key: 1,
          another_unexpected: { x: 1 },
        },
      }),
      greet,
    );
    expect(extra).toEqual({ text: "Hello, Bo!" });
  });

  it("an answer of the wrong shape or inputResponses that is not an object is -32602, never a complete result", async () => {
    const { rounds } = setup();
    const bad = await rejection(
      rounds.run(modern({ name: "g", inputResponses: { user_name: 12345 } }), greet),
      RequestStateError,
    );
    expect(bad.reason).toBe("invalid_input");
    expect(bad.code).toBe(-32602);
    expect(bad.message).toContain('"user_name"');
    for (const value of [null, [1], "x"]) {
      const err = await rejection(
        rounds.run(modern({ name: "g", inputResponses: value }), greet),
        RequestStateError,
      );
      expect(err.reason).toBe("invalid_input");
    }
    // Even a handler that swallows the failure does not complete.
    const swallowing = async (input: InputContext) => {
      try {
        await input.sample({ messages: [], maxTokens: 1 }, { key: "s" });
      } catch {
        return "swallowed";
      }
      return "answered";
    };
    const err = await rejection(
      rounds.run(modern({ name: "g", inputResponses: { s: { role: "assistant" } } }), swallowing),
      RequestStateError,
    );
    expect(err.message).toMatch(/content/);
  });

  it("tampered, expired and foreign state is rejected with -32602 saying which", async () => {
    const { rounds, time } = setup();
    const params = { name: "greet", arguments: { a: 1 } };
    const first = asInputRequired(await rounds.run(modern(params), greet));
    const answer = { user_name: ACCEPT({ name: "A" }) };
    const tampered = await rejection(
      rounds.run(
        modern({ ...params, requestState: first.requestState + "-TAMPERED", inputResponses: answer }),
        greet,
      ),
      RequestStateError,
    );
    expect(["tampered", "malformed"]).toContain(tampered.reason);
    const foreign = await rejection(
      rounds.run(
        modern({
          name: "greet",
          arguments: { a: 2 },
          requestState: first.requestState,
          inputResponses: answer,
        }),
        greet,
      ),
      RequestStateError,
    );
    expect(foreign.reason).toBe("foreign");
    const otherMethod = await rejection(
      rounds.run(
        modern({ ...params, requestState: first.requestState, inputResponses: answer }, {
          method: "prompts/get",
        }),
        greet,
      ),
      RequestStateError,
    );
    expect(otherMethod.reason).toBe("foreign");
    await time.advance(600_000);
    expect(
      await rounds.run(
        modern({ ...params, requestState: first.requestState, inputResponses: answer }),
        greet,
      ),
    ).toEqual({ text: "Hello, A!" });
    await time.advance(1);
    const expired = await rejection(
      rounds.run(modern({ ...params, requestState: first.requestState, inputResponses: answer }), greet),
      RequestStateError,
    );
    expect(expired.reason).toBe("expired");
  });

  it("state sealed with another replica's key is refused; a shared key opens on either", async () => {
    const time = new FakeTimeProvider();
    const a = new InputRounds({ codec: new RequestStateCodec({ key: KEY, timeProvider: time }) });
    const b = new InputRounds({ codec: new RequestStateCodec({ key: KEY, timeProvider: time }) });
    const c = new InputRounds({ codec: new RequestStateCodec({ timeProvider: time }) });
    const first = asInputRequired(await a.run(modern({ name: "g" }), greet));
    const retry = modern({
      name: "g",
      requestState: first.requestState,
      inputResponses: { user_name: ACCEPT({ name: "R" }) },
    });
    expect(await b.run(retry, greet)).toEqual({ text: "Hello, R!" });
    expect((await rejection(c.run(retry, greet), RequestStateError)).reason).toBe("tampered");
  });

  it("parallel requests are isolated: each gets its own state and answers", async () => {
    const { rounds } = setup();
    const echo = async (input: InputContext) => {
      const name = await input.once("id", () => Math.random());
      const r = await input.elicit({ message: "x", requestedSchema: NAME_SCHEMA }, { key: "k" });
      return { name, got: r.content?.name };
    };
    const [p1, p2] = await Promise.all([
      rounds.run(modern({ name: "one" }), echo),
      rounds.run(modern({ name: "two" }), echo),
    ]);
    const s1 = asInputRequired(p1).requestState;
    const s2 = asInputRequired(p2).requestState;
    const [r1, r2] = await Promise.all([
      rounds.run(
        modern({ name: "one", requestState: s1, inputResponses: { k: ACCEPT({ name: "first" }) } }),
        echo,
      ),
      rounds.run(
        modern({ name: "two", requestState: s2, inputResponses: { k: ACCEPT({ name: "second" }) } }),
        echo,
      ),
    ]);
    expect((r1 as { got: string }).got).toBe("first");
    expect((r2 as { got: string }).got).toBe("second");
    expect((r1 as { name: number }).name).not.toBe((r2 as { name: number }).name);
    // Swapping the states across the two requests is refused.
    const swapped = await rejection(
      rounds.run(
        modern({ name: "one", requestState: s2, inputResponses: { k: ACCEPT({ name: "x" }) } }),
        echo,
      ),
      RequestStateError,
    );
    expect(swapped.reason).toBe("foreign");
  });

  it("state and once survive the rounds", async () => {
    const { rounds } = setup();
    let computed = 0;
    const handler = async (input: InputContext) => {
      const id = await input.once("id", () => `id-${++computed}`);
      if (input.round === 0) input.state = { started: "yes" };
      await input.elicit({ message: "x", requestedSchema: NAME_SCHEMA });
      return { id, state: input.state };
    };
    const first = asInputRequired(await rounds.run(modern({}), handler));
    const done = await rounds.run(
      modern({ requestState: first.requestState, inputResponses: { "elicit-0": ACCEPT({ name: "n" }) } }),
      handler,
    );
    expect(done).toEqual({ id: "id-1", state: { started: "yes" } });
    expect(computed).toBe(1);
  });

  it("asks only for what the request's capabilities declare, else -32021 with requiredCapabilities", async () => {
    const { rounds } = setup();
    const ask = (caps: Record<string, unknown>, fn: (input: InputContext) => Promise<unknown>) =>
      rounds.run(modern({}, { clientCapabilities: caps }), fn);
    const cases: [Record<string, unknown>, (input: InputContext) => Promise<unknown>, unknown][] = [
      [{}, (i) => i.elicit({ message: "m", requestedSchema: NAME_SCHEMA }), { elicitation: { form: {} } }],
      [{ elicitation: { form: {} } }, (i) => i.elicit({ mode: "url", message: "m", url: "https://x" }), {
        elicitation: { url: {} },
      }],
      [{ elicitation: { url: {} } }, (i) => i.elicit({ message: "m", requestedSchema: NAME_SCHEMA }), {
        elicitation: { form: {} },
      }],
      [{ elicitation: {} }, (i) => i.sample({ messages: [], maxTokens: 1 }), { sampling: {} }],
      [{ sampling: {} }, (i) => i.sample({ messages: [], maxTokens: 1, tools: [] }), {
        sampling: { tools: {} },
      }],
      [{ sampling: {} }, (i) => i.sample({ messages: [], maxTokens: 1, includeContext: "allServers" }), {
        sampling: { context: {} },
      }],
      [{ sampling: {} }, (i) => i.listRoots(), { roots: {} }],
    ];
    for (const [caps, fn, required] of cases) {
      const err = await rejection(ask(caps, fn), JsonRpcError);
      expect(err.code, JSON.stringify(required)).toBe(-32021);
      expect(err.data).toEqual({ requiredCapabilities: required });
    }
    const ok = asInputRequired(
      await ask(
        { elicitation: { url: {} } },
        (i) => i.elicit({ mode: "url", message: "m", url: "https://x" }),
      ),
    );
    expect(ok.inputRequests["elicit-0"].method).toBe("elicitation/create");
    // A handler that adapts to the capabilities (the conformance capability-check tool).
    const adaptive = async (
      i: InputContext,
    ) => (i.canElicit()
      ? i.elicit({ message: "m", requestedSchema: NAME_SCHEMA })
      : i.canSample()
      ? i.sample({ messages: [], maxTokens: 5 })
      : "none");
    const samplingOnly = asInputRequired(await ask({ sampling: {} }, adaptive));
    expect(Object.values(samplingOnly.inputRequests).map((r) => r.method)).toEqual([
      "sampling/createMessage",
    ]);
    expect(await ask({}, adaptive)).toBe("none");
  });

  it("only tools/call, prompts/get and resources/read may ask; others never answer input_required", async () => {
    const { rounds } = setup();
    for (const method of ["prompts/get", "resources/read"]) {
      asInputRequired(await rounds.run(modern({}, { method }), greet));
    }
    for (const method of ["tools/list", "prompts/list", "completion/complete"]) {
      const err = await rejection(rounds.run(modern({}, { method }), greet), JsonRpcError);
      expect(err.code).toBe(-32603);
      expect(err.message).toContain(method);
    }
  });

  it("the passive context of another method answers the checks and refuses every ask", async () => {
    const { rounds } = setup();
    const input = rounds.passive(modern({}, { method: "tools/list" }));
    expect(input.canElicit()).toBe(true);
    expect(input.canElicit("url")).toBe(false);
    expect(input.round).toBe(0);
    await expect(input.listRoots()).rejects.toThrow(/while handling tools\/list/);
  });

  it("a handler that swallows the signal still ends the round with input_required; its signal aborts", async () => {
    const { rounds } = setup();
    let signal: AbortSignal | undefined;
    const result = asInputRequired(
      await rounds.run(modern({}), async (input) => {
        signal = input.roundSignal;
        try {
          await input.elicit({ message: "m", requestedSchema: NAME_SCHEMA });
        } catch (error) {
          expect(error).toBeInstanceOf(InputRequiredSignal);
        }
        return "value discarded";
      }),
    );
    expect(Object.keys(result.inputRequests)).toEqual(["elicit-0"]);
    expect(signal?.aborted).toBe(true);
  });

  it("an ask after the round ended (an abandoned branch) rejects at once and is not added", async () => {
    const { rounds } = setup();
    let late: Promise<unknown> | undefined;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const result = asInputRequired(
      await rounds.run(modern({}), async (input) => {
        void gate.then(() => {
          late = input.listRoots();
        });
        await input.elicit({ message: "m", requestedSchema: NAME_SCHEMA });
      }),
    );
    release();
    await flushMicrotasks();
    await expect(late).rejects.toBeInstanceOf(InputRequiredSignal);
    expect(Object.keys(result.inputRequests)).toEqual(["elicit-0"]);
  });

  it("a handler error with nothing pending is the request's error; a key used twice is refused", async () => {
    const { rounds } = setup();
    await expect(rounds.run(modern({}), async () => {
      throw new JsonRpcError(-32602, "Bad tool args");
    })).rejects.toThrow("Bad tool args");
    await expect(
      rounds.run(modern({}), (i) => Promise.all([i.listRoots({ key: "k" }), i.listRoots({ key: "k" })])),
    ).rejects.toThrow(/used twice/);
  });
});

describe("InputRounds, legacy era", () => {
  function legacy(
    sendRequest?: InputRoundRequest["sendRequest"],
    extra: Partial<InputRoundRequest> = {},
  ): InputRoundRequest {
    return {
      era: "legacy",
      method: "tools/call",
      params: {},
      clientCapabilities: ALL,
      sendRequest,
      ...extra,
    };
  }

  it("sends the real request to the client and resumes with its reply", async () => {
    const { rounds } = setup();
    const sent: [string, unknown][] = [];
    const result = await rounds.run(
      legacy(async (method, params) => {
        sent.push([method, params]);
        return ACCEPT({ name: "Lee" });
      }),
      greet,
    );
    expect(result).toEqual({ text: "Hello, Lee!" });
    expect(sent).toEqual([["elicitation/create", {
      message: "What is your name?",
      requestedSchema: NAME_SCHEMA,
    }]]);
  });

  it("a client that never answers fails the call after clientRequestTimeout (60 s default), not before, and cancels the send", async () => {
    const { rounds, time } = setup();
    let sendSignal: AbortSignal | undefined;
    const outcome = rounds.run(
      legacy((_m, _p, { signal }) => {
        sendSignal = signal;
        return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
      }),
      greet,
    );
    let settled = false;
    outcome.then(() => (settled = true), () => (settled = true));
    await time.advance(59_999);
    expect(settled).toBe(false);
    await time.advance(1);
    const err = await rejection(outcome, TimeoutError);
    expect(err.timeoutMs).toBe(60_000);
    expect(err.message).toContain("elicitation/create");
    expect(sendSignal?.aborted).toBe(true);
  });

  it("a connection without a way to send requests fails at once with a clear error", async () => {
    const { rounds } = setup();
    const err = await rejection(rounds.run(legacy(undefined), greet), JsonRpcError);
    expect(err.message).toMatch(/cannot carry server-to-client requests/);
    // Before the capability check: a stateless request never learned the client's capabilities.
    const bare = await rejection(
      rounds.run(legacy(undefined, { clientCapabilities: {} }), greet),
      JsonRpcError,
    );
    expect(bare.message).toMatch(/cannot carry server-to-client requests/);
  });

  it("the request's own cancellation aborts the pending client request", async () => {
    const { rounds } = setup();
    const controller = new AbortController();
    const outcome = rounds.run(
      legacy(
        (_m, _p, { signal }) =>
          new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
        { signal: controller.signal },
      ),
      greet,
    );
    controller.abort(new Error("cancelled by peer"));
    await expect(outcome).rejects.toThrow("cancelled by peer");
  });

  it("an invalid reply is a ProtocolError; capabilities and methods are checked as in the modern era; URL mode gets an elicitationId", async () => {
    const { rounds } = setup();
    await expect(rounds.run(legacy(async () => ({ nope: 1 })), greet)).rejects.toBeInstanceOf(ProtocolError);
    const err = await rejection(
      rounds.run(legacy(async () => ROOTS, { clientCapabilities: {} }), (i) => i.listRoots()),
      JsonRpcError,
    );
    expect(err.code).toBe(-32021);
    await expect(rounds.run(legacy(async () => ROOTS, { method: "tools/list" }), (i) => i.listRoots()))
      .rejects.toThrow(/only tools\/call/);
    let params: Record<string, unknown> | undefined;
    await rounds.run(
      legacy(async (_m, p) => ((params = p as Record<string, unknown>), { action: "accept" }), {
        clientCapabilities: { elicitation: { url: {} } },
      }),
      (i) => i.elicit({ mode: "url", message: "Go", url: "https://example.com/x" }),
    );
    expect(typeof params?.elicitationId).toBe("string");
  });
});

describe("runModernRound (the stream's fast path)", () => {
  it("returns a first round's plain value at once, without a promise", () => {
    const { rounds } = setup();
    expect(runModernRound(rounds, modern({ name: "x" }), () => ({ content: [] }))).toEqual({ content: [] });
  });

  it("throws a first round's synchronous failure at once", () => {
    const { rounds } = setup();
    expect(() =>
      runModernRound(rounds, modern({}), () => {
        throw new JsonRpcError(-32000, "no");
      })
    ).toThrow("no");
  });

  it("ends with input_required like run() when the body asks, and the retry with the answer completes", async () => {
    const { rounds } = setup();
    const first = asInputRequired(await runModernRound(rounds, modern({}), greet));
    const again = asInputRequired(await rounds.run(modern({}), greet));
    expect(first.inputRequests).toEqual(again.inputRequests);
    const retry = modern({
      inputResponses: { user_name: ACCEPT({ name: "Ada" }) },
      requestState: first.requestState,
    });
    expect(await runModernRound(rounds, retry, greet)).toEqual(await rounds.run(retry, greet));
  });

  it("leaves legacy requests and async bodies to a promise with run()'s outcome", async () => {
    const { rounds } = setup();
    const legacy = runModernRound(rounds, {
      era: "legacy",
      method: "tools/call",
      params: {},
      clientCapabilities: {},
    }, () => 1);
    expect(legacy).toBeInstanceOf(Promise);
    expect(await legacy).toBe(1);
    const later = runModernRound(rounds, modern({}), async () => 2);
    expect(later).toBeInstanceOf(Promise);
    expect(await later).toBe(2);
  });
});
