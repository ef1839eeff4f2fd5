#!/usr/bin/env node
/**
 * `onemodelcontext`: connect to any MCP server (either era), show how the era was decided and what it
 * offers, call a tool, or serve the demo server. See `onemodelcontext --help`.
 * @module
 */
import { JsonRpcError, ProcessExitedError, TransportError } from "onemodelcontext";
import { parseArgs, USAGE, UsageError } from "./args.ts";
import { printInspect } from "./inspect.ts";
import { Progress } from "./progress.ts";
import { connect, lastServerStderr } from "./session.ts";
import { terminalJson, terminalText } from "./terminal_text.ts";

const EXIT_OK = 0;
const EXIT_USAGE = 2;
const EXIT_CONNECT = 3;
const EXIT_TOOL = 4;

/** Runs the CLI and returns its exit code. */
export async function main(argv: string[]): Promise<number> {
  let args;
  try {
    args = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n\n${USAGE}\n`);
    return EXIT_USAGE;
  }
  if (args.command === "help") {
    process.stdout.write(`${USAGE}\n`);
    return EXIT_OK;
  }
  if (args.command === "demo") {
    const { runDemo } = await import("./demo.ts");
    await runDemo();
    return EXIT_OK;
  }
  const progress = new Progress();
  let client;
  try {
    client = await connect(args, progress);
  } catch (error) {
    progress.stop();
    process.stderr.write(`Connection failed: ${describe(error)}\n`);
    printStderrTail(error);
    return EXIT_CONNECT;
  }
  try {
    if (args.command === "inspect" || args.command === "tour") {
      await printInspect(client, {
        json: args.json && args.command === "inspect",
        write: writeStdout,
        warn: (text) => process.stderr.write(`${terminalText(text)}\n`),
      });
    }
    if (args.command === "call" || args.command === "tour") {
      const tool = args.tool ?? "echo";
      const toolArgs = args.toolArgs ?? (args.command === "tour" ? { text: "hello from onemodelcontext" } : {});
      if (args.command === "tour") process.stdout.write(`\nCalling ${terminalText(tool)} ${terminalJson(toolArgs, 0)}\n`);
      progress.phase(`calling tool ${tool}`);
      const result = (await client.request("tools/call", { name: tool, arguments: toolArgs })) as Record<string, unknown>;
      if (args.json && args.command === "call") process.stdout.write(`${terminalJson({ tool, result })}\n`);
      else process.stdout.write(`${formatToolResult(result)}\n`);
      if (result.isError === true) return EXIT_TOOL;
    }
    return EXIT_OK;
  } catch (error) {
    progress.stop();
    process.stderr.write(`${error instanceof JsonRpcError ? "Request failed" : "Failed"}: ${describe(error)}\n`);
    if (!(error instanceof JsonRpcError)) printStderrTail(error);
    return error instanceof JsonRpcError ? EXIT_TOOL : EXIT_CONNECT;
  } finally {
    // The answer is already printed and the exit code decided; a failed close is still worth a line.
    await client.close().catch((error: unknown) => process.stderr.write(`Closing the server failed: ${describe(error)}\n`));
    progress.phase("closed");
  }
}

/** Writes to stdout and waits while Node buffers more than its high-water mark, so output stays bounded. */
function writeStdout(text: string): Promise<void> | void {
  if (process.stdout.write(text)) return;
  return new Promise((resolve) => {
    const done = (): void => {
      process.stdout.off("drain", done);
      process.stdout.off("close", done);
      process.stdout.off("error", done);
      resolve();
    };
    process.stdout.on("drain", done);
    process.stdout.on("close", done);
    process.stdout.on("error", done);
  });
}

/** Shows the server's last stderr lines, unless the error message already carries them. */
function printStderrTail(error: unknown): void {
  const tail = lastServerStderr().trimEnd();
  if (!tail || (error instanceof Error && error.message.includes(tail))) return;
  process.stderr.write(`Server stderr (last lines):\n${terminalText(tail, { multiline: true })}\n`);
}

function formatToolResult(result: Record<string, unknown>): string {
  const content = Array.isArray(result.content) ? result.content : [];
  const parts = content.map((c: Record<string, unknown>) => (c.type === "text" ? terminalText(c.text, { multiline: true }) : terminalJson(c, 0)));
  const body = parts.join("\n") || terminalJson(result, 0);
  return result.isError === true ? `Tool error: ${body}` : body;
}

/** An error in plain words, made inert for the terminal: its message may quote the server. */
function describe(error: unknown): string {
  return terminalText(describeRaw(error), { multiline: true });
}

function describeRaw(error: unknown): string {
  if (error instanceof JsonRpcError) return `${error.message} (JSON-RPC ${error.code})`;
  if (error instanceof ProcessExitedError) return error.message;
  if (error instanceof TransportError) return `${error.message} [${error.code}]`;
  return error instanceof Error ? error.message : String(error);
}

const self = new URL(import.meta.url).pathname;
const invoked = process.argv[1] ? (await import("node:fs")).realpathSync(process.argv[1]) : "";
if (invoked === self || invoked === decodeURIComponent(self)) {
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (error) => {
      process.stderr.write(`Unexpected failure: ${terminalText(error?.stack ?? error, { multiline: true })}\n`);
      process.exitCode = 1;
    },
  );
}
