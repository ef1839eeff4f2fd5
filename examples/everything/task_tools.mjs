// @ts-check
// The everything server's task tools (the io.modelcontextprotocol/tasks extension, 2026-07-28): the
// conformance suite's task fixtures (greet, slow_compute, failing_job, protocol_error_job,
// confirm_delete, multi_input, test_tool_with_task) and long_task. In the legacy era, and for a
// modern client that does not declare the extension, the tools with optional task support answer
// synchronously.
import { JsonRpcError } from "onemodelcontext";

/**
 * Waits `ms` (real timers: examples may use them), or rejects when `signal` aborts.
 * @param {number} ms
 * @param {AbortSignal} signal
 * @returns {Promise<void>}
 */
function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** @type {{ type: "object", properties: { confirm: { type: "boolean" }, name: { type: "string" } } }} */
const CONFIRM_SCHEMA = {
  type: "object",
  properties: { confirm: { type: "boolean" }, name: { type: "string" } },
};

/**
 * Registers the task tools on `server`.
 * @param {import("onemodelcontext").ContextServer} server
 */
export function addTaskTools(server) {
  /** @type {(value: string) => { type: "text", text: string }} */
  const text = (value) => ({ type: "text", text: value });

  server.tool("greet", {
    description: "Sync-only: returns Hello, {name}!",
    inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
  }, ({ name }) => `Hello, ${String(name)}!`);

  server.tool("slow_compute", {
    description: "Sleeps `seconds` seconds, then returns a result (task support optional)",
    inputSchema: {
      type: "object",
      properties: { seconds: { type: "number", minimum: 0, maximum: 600 }, label: { type: "string" } },
    },
    taskSupport: "optional",
    safeToRepeat: true,
  }, async (args, ctx) => {
    const { seconds = 1, label = "" } = /** @type {{ seconds?: number, label?: string }} */ (args); // schema-checked
    await ctx.sendProgress(0, { total: 1, message: `computing ${label}`.trim() });
    await sleep(seconds * 1000, ctx.signal);
    return { content: [text(`Computed ${label} after ${seconds} s`.replace("  ", " "))] };
  });

  server.tool("long_task", {
    description: "Works for `ms` milliseconds, then returns `done after {ms} ms` (task support optional)",
    inputSchema: {
      type: "object",
      properties: { ms: { type: "integer", minimum: 0, maximum: 600_000 } },
      required: ["ms"],
    },
    taskSupport: "optional",
    safeToRepeat: true,
  }, async (args, ctx) => {
    const { ms } = /** @type {{ ms: number }} */ (args); // schema-checked
    await sleep(ms, ctx.signal);
    return { content: [text(`done after ${ms} ms`)] };
  });

  server.tool("failing_job", {
    description: "Always a tool execution error after about 1 s (task support required)",
    taskSupport: "required",
  }, async (_args, ctx) => {
    await sleep(1000, ctx.signal);
    return { content: [text("The job failed: simulated tool execution error")], isError: true };
  });

  server.tool("protocol_error_job", {
    description: "Fails with a JSON-RPC error (the task turns failed)",
    taskSupport: "optional",
  }, () => {
    throw new JsonRpcError(-32603, "Simulated internal failure of protocol_error_job");
  });

  server.tool("confirm_delete", {
    description: "Asks the user to confirm deleting `filename` (input_required on the task)",
    inputSchema: { type: "object", properties: { filename: { type: "string" } } },
    taskSupport: "optional",
  }, async (args, ctx) => {
    const { filename = "file" } = /** @type {{ filename?: string }} */ (args); // schema-checked
    const answer = await ctx.elicit({ message: `Delete ${filename}?`, requestedSchema: CONFIRM_SCHEMA });
    const confirmed = answer.action === "accept" && answer.content?.confirm !== false;
    return { content: [text(confirmed ? `Deleted ${filename}` : `Kept ${filename}`)] };
  });

  server.tool("multi_input", {
    description: "Asks two questions at once (two inputRequests pending together)",
    taskSupport: "optional",
  }, async (_args, ctx) => {
    const [first, second] = await Promise.all([
      ctx.elicit({ message: "First input?", requestedSchema: CONFIRM_SCHEMA }, { key: "first" }),
      ctx.elicit({ message: "Second input?", requestedSchema: CONFIRM_SCHEMA }, { key: "second" }),
    ]);
    return {
      content: [
        text(`Inputs: ${first.content?.name ?? first.action}, ${second.content?.name ?? second.action}`),
      ],
    };
  });

  server.tool("test_tool_with_task", {
    description: "Asks for a name in an input round, then continues as a task (MRTR, then a task)",
    taskSupport: "required",
    taskStart: "manual",
  }, async (_args, ctx) => {
    const answer = await ctx.elicit({
      message: "What is your name?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    }, { key: "user_name" });
    await ctx.runAsTask();
    const name = answer.action === "accept" ? answer.content?.name : "stranger";
    return { content: [text(`Hello, ${name}! (finished as task ${ctx.taskId})`)] };
  });
}
