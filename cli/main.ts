#!/usr/bin/env node
/**
 * `onemodelcontext`: connect to any MCP server (either era, stdio or HTTP, or an entry of a host's
 * config file), show how the era was decided and what it offers, call a tool, read a resource, get a
 * prompt, complete, listen, ping, or serve a stdio server over HTTP. See `onemodelcontext --help`.
 * @module
 */
import { ClientFeatureError, type ContextClient, JsonRpcError, TimeoutError } from "onemodelcontext";
import { type CliArgs, EXIT, parseArgs, USAGE, UsageError } from "./args.ts";
import { coerceArgs } from "./coerce_args.ts";
import { ContentFiles, describeContent, describeResourceContents, wrapText } from "./content_output.ts";
import { printInspect } from "./inspect.ts";
import { Progress, ProgressBar } from "./progress.ts";
import { CLI_VERSION, closeOAuth, connect, lastServerPid, lastServerStderr } from "./session.ts";
import { terminalJson, terminalText } from "./terminal_text.ts";
import { failureOf } from "./failure.ts";
import { checkArgNames, MAX_PARAMS_SHOWN, toolParams } from "./tool_params.ts";

/** Runs the CLI and returns its exit code. */
export async function main(argv: string[]): Promise<number> {
  let args: CliArgs;
  try {
    args = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    const own = argv.indexOf("--") === -1 ? argv : argv.slice(0, argv.indexOf("--"));
    return usageFailure(error, own.includes("--json"));
  }
  if (args.command === "help") {
    process.stdout.write(`${USAGE}\n`);
    return EXIT.ok;
  }
  if (args.command === "version") {
    process.stdout.write(
      args.json ? `${JSON.stringify({ version: CLI_VERSION })}\n` : `onemodelcontext ${CLI_VERSION}\n`,
    );
    return EXIT.ok;
  }
  if (args.command === "demo") {
    const { runDemo } = await import("./demo.ts");
    await runDemo();
    return EXIT.ok;
  }
  if (args.command === "serve") {
    const { runGateway } = await import("./gateway.ts");
    return await runGateway(args);
  }

  const progress = new Progress({ quiet: args.quiet });
  const bar = new ProgressBar({ quiet: args.quiet });
  // Ctrl-C: cancel the running request (notifications/cancelled), close the server, exit 130.
  const interrupt = new AbortController();
  const onSigint = (): void => {
    if (interrupt.signal.aborted) {
      // The first Ctrl-C is closing the server gracefully (stdin, then SIGTERM, then SIGKILL after
      // their grace); a second one does not wait for that: the server is killed now.
      const pid = lastServerPid;
      let killed = false;
      if (pid !== undefined) {
        try {
          process.kill(pid, "SIGKILL");
          killed = true;
        } catch { /* already gone */ }
      }
      process.stderr.write(
        `Interrupted again: ${killed ? `killed the server (pid ${pid}), ` : ""}leaving now\n`,
      );
      process.exit(EXIT.interrupted);
    }
    bar.clear();
    if (args.command !== "listen") {
      process.stderr.write("Interrupted: cancelling the request and closing the server\n");
    }
    interrupt.abort(new InterruptedError());
  };
  process.on("SIGINT", onSigint);
  process.on("SIGTERM", onSigint);
  let client: ContextClient;
  try {
    client = await connect(args, progress);
  } catch (error) {
    progress.stop();
    await closeOAuth();
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onSigint);
    if (error instanceof UsageError) return usageFailure(error, args.json);
    fail("Connection failed", error, args.json);
    printStderrTail(error);
    return EXIT.connect;
  }
  try {
    if (interrupt.signal.aborted) return EXIT.interrupted;
    if (!args.quiet) {
      client.onLog((entry) => {
        const data = typeof entry.data === "string" ? entry.data : JSON.stringify(entry.data);
        bar.interrupt(
          `[server ${terminalText(entry.level)}${entry.logger ? ` ${terminalText(entry.logger)}` : ""}] ${
            terminalText(data, { multiline: true })
          }\n`,
        );
      });
      const caps = (client.serverCapabilities ?? {}) as Record<string, unknown>;
      if (client.era === "modern" || caps.logging) {
        await client.setLogLevel(args.logLevel as never, { signal: interrupt.signal }).catch(
          (error: unknown) => {
            process.stderr.write(
              `Note: the server did not take log level ${terminalText(args.logLevel)}: ${describe(error)}\n`,
            );
          },
        );
      }
    }
    const code = await runCommand(client, args, { signal: interrupt.signal, bar, progress });
    bar.clear();
    return interrupt.signal.aborted && args.command !== "listen" ? EXIT.interrupted : code;
  } catch (error) {
    progress.stop();
    bar.clear();
    if (interrupt.signal.aborted) return args.command === "listen" ? EXIT.ok : EXIT.interrupted;
    if (error instanceof UsageError) return usageFailure(error, args.json);
    const kind = exitOf(error);
    fail(
      kind === EXIT.timeout ? "Timed out" : kind === EXIT.request ? "Request failed" : "Failed",
      error,
      args.json,
    );
    if (kind === EXIT.connect) printStderrTail(error);
    return kind;
  } finally {
    // The answer is already printed and the exit code decided; a failed close is still worth a line.
    await client.close().catch((error: unknown) =>
      process.stderr.write(`Closing the server failed: ${describe(error)}\n`)
    );
    await closeOAuth();
    progress.phase("closed");
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onSigint);
  }
}

class InterruptedError extends Error {
  override name = "InterruptedError";
  constructor() {
    super("Interrupted (Ctrl-C)");
  }
}

interface RunContext {
  signal: AbortSignal;
  bar: ProgressBar;
  progress: Progress;
}

const width = (): number | undefined => (process.stdout.isTTY ? process.stdout.columns : undefined);

async function runCommand(client: ContextClient, args: CliArgs, run: RunContext): Promise<number> {
  const { signal } = run;
  const files = new ContentFiles(args.outDir);
  const print = (text: string): void => void process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
  const json = (value: unknown): void => print(terminalJson(value));
  const request = { signal, ...(args.timeout ? { timeout: args.timeout } : {}) };
  switch (args.command) {
    case "tour":
    case "inspect": {
      const failures = await printInspect(client, {
        json: args.json && args.command === "inspect",
        write: writeStdout,
        warn: (text) => process.stderr.write(`${terminalText(text)}\n`),
      });
      if (args.command === "inspect") return failures ? EXIT.request : EXIT.ok;
      print(`\nCalling echo {"text":"hello from onemodelcontext"}`);
      const result = await client.callTool("echo", { text: "hello from onemodelcontext" }, request);
      print(toolResultText(result as Record<string, unknown>, files));
      return EXIT.ok;
    }
    case "call": {
      const tool = args.name!;
      let found: Record<string, unknown> | undefined;
      if (args.pairs.length || args.toolHelp) {
        for await (const t of client.iterateTools({ signal })) {
          if (t.name === tool) {
            found = t as unknown as Record<string, unknown>;
            break;
          }
        }
      }
      if (args.toolHelp) {
        if (!found) {
          throw new UsageError(`The server lists no tool ${terminalText(JSON.stringify(tool))}`);
        }
        if (args.json) json(found);
        else print(toolHelpText(found));
        return EXIT.ok;
      }
      const schema = found?.inputSchema;
      if (found) checkArgNames(tool, args.pairs, schema);
      const toolArgs = coerceArgs(args.pairs, schema, args.jsonArgs);
      run.progress.phase(`calling tool ${tool}`);
      const result = (await client.callTool(tool, toolArgs, {
        ...request,
        onProgress: (u) => run.bar.update(u),
        onTaskStatus: (task) =>
          run.progress.phase(
            `task ${task.taskId}: ${task.status}${task.statusMessage ? ` (${task.statusMessage})` : ""}`,
          ),
      })) as Record<string, unknown>;
      run.bar.clear();
      if (args.json) json({ tool, result });
      else print(toolResultText(result, files));
      return result.isError === true ? EXIT.request : EXIT.ok;
    }
    case "task": {
      const taskId = args.name!;
      if (args.taskAction === "cancel") {
        await client.cancelTask(taskId, { signal });
        if (args.json) json({ taskId, cancelled: true });
        else print(`Asked the server to cancel task ${terminalText(taskId)}`);
        return EXIT.ok;
      }
      if (args.taskAction === "wait") {
        const result = await client.resumeTask(taskId, {
          signal,
          onTaskStatus: (task) =>
            run.progress.phase(
              `task ${task.taskId}: ${task.status}${task.statusMessage ? ` (${task.statusMessage})` : ""}`,
            ),
        });
        if (args.json) json({ taskId, result });
        else print(toolResultText(result, files));
        return result.isError === true ? EXIT.request : EXIT.ok;
      }
      const task = await client.getTask(taskId, { signal });
      if (args.json) json(task);
      else {
        const lines = [`task ${terminalText(task.taskId)}: ${terminalText(task.status)}`];
        if (task.statusMessage) lines.push(`progress: ${terminalText(task.statusMessage)}`);
        lines.push(`created ${terminalText(task.createdAt)}, updated ${terminalText(task.lastUpdatedAt)}`);
        if (task.status === "completed" && task.result) lines.push(toolResultText(task.result, files));
        if (task.status === "failed" && task.error) {
          lines.push(`error ${task.error.code}: ${terminalText(task.error.message)}`);
        }
        if (task.status === "input_required") {
          for (const key of Object.keys(task.inputRequests ?? {})) {
            lines.push(
              `waiting for input ${terminalText(key)} (${terminalText(task.inputRequests![key].method)})`,
            );
          }
        }
        print(lines.join("\n"));
      }
      return task.status === "failed" ? EXIT.request : EXIT.ok;
    }
    case "read": {
      const result = (await client.readResource(args.name!, request)) as Record<string, unknown>;
      if (args.json) json(result);
      else {
        const contents = Array.isArray(result.contents) ? result.contents : [];
        print(
          contents.map((c) => describeResourceContents(c as Record<string, unknown>, files, width())).join(
            "\n",
          ) || "(no contents)",
        );
      }
      return EXIT.ok;
    }
    case "prompt": {
      const result = (await client.getPrompt(args.name!, Object.fromEntries(args.pairs), request)) as Record<
        string,
        unknown
      >;
      if (args.json) json(result);
      else {
        const lines: string[] = [];
        if (result.description) {
          lines.push(wrapText(terminalText(result.description, { multiline: true }), width()), "");
        }
        for (
          const m of (Array.isArray(result.messages) ? result.messages : []) as Record<string, unknown>[]
        ) {
          lines.push(
            `${terminalText(m.role)}:`,
            describeContent(m.content as Record<string, unknown>, files, width()),
            "",
          );
        }
        print(lines.join("\n").trimEnd());
      }
      return EXIT.ok;
    }
    case "complete": {
      const c = args.completion!;
      const ref = c.ref === "prompt"
        ? { type: "ref/prompt", name: c.name }
        : { type: "ref/resource", uri: c.name };
      const result =
        (await client.complete(ref as never, { name: c.argument, value: c.value }, request)) as Record<
          string,
          unknown
        >;
      if (args.json) json(result);
      else {
        const completion = (result.completion ?? {}) as {
          values?: unknown[];
          total?: number;
          hasMore?: boolean;
        };
        const values = completion.values ?? [];
        print(values.map((v) => terminalText(v)).join("\n") || "(no completions)");
        if (completion.hasMore) {
          print(`… more${completion.total !== undefined ? ` (${completion.total} in all)` : ""}`);
        }
      }
      return EXIT.ok;
    }
    case "ping": {
      // 2026-07-28 removed ping; a modern server that no longer answers it is asked server/discover.
      let method = "ping";
      let start = performance.now();
      try {
        await client.request("ping", {}, { signal });
      } catch (error) {
        if (!(client.era === "modern" && error instanceof JsonRpcError && error.code === -32601)) throw error;
        method = "server/discover";
        start = performance.now();
        await client.request("server/discover" as never, {}, { signal });
      }
      const ms = performance.now() - start;
      if (args.json) json({ ok: true, method, ms: Math.round(ms * 10) / 10 });
      else print(`The server answered ${method} in ${ms.toFixed(1)} ms`);
      return EXIT.ok;
    }
    case "listen": {
      const l = args.listen;
      const all = !l.tools && !l.prompts && !l.resources && l.uris.length === 0;
      const stream = client.listen({
        tools: all || l.tools,
        prompts: all || l.prompts,
        resources: all || l.resources,
        resourceUris: l.uris,
        signal,
      });
      run.progress.phase("listening for changes (Ctrl-C to stop)");
      try {
        for await (const event of stream) {
          const e = event as { type: string; uri?: string };
          if (args.json) print(JSON.stringify(e));
          else {print(
              e.type === "resourceUpdated"
                ? `resource updated: ${terminalText(e.uri)}`
                : `${LIST_WORDS[e.type] ?? terminalText(e.type)}`,
            );}
        }
      } catch (error) {
        if (signal.aborted) return EXIT.ok;
        throw error;
      }
      return EXIT.ok;
    }
  }
  return EXIT.usage;
}

const LIST_WORDS: Record<string, string> = {
  resync: "the listen stream reopened: changes may have been missed, list again",
  toolsListChanged: "the tool list changed",
  promptsListChanged: "the prompt list changed",
  resourcesListChanged: "the resource list changed",
};

/** `call TOOL --help`: the tool's name, description, parameters and input schema. */
function toolHelpText(tool: Record<string, unknown>): string {
  const lines = [`Tool ${terminalText(tool.name)}`];
  if (typeof tool.description === "string") {
    lines.push(wrapText(terminalText(tool.description, { multiline: true }), width()));
  }
  lines.push("", "Parameters:");
  const params = toolParams(tool.inputSchema);
  if (params.length === 0) lines.push("  (none)");
  for (const p of params.slice(0, MAX_PARAMS_SHOWN)) {
    lines.push(
      `  ${terminalText(p.name)}  ${terminalText(p.type)}${p.required ? "  (required)" : ""}${
        p.description ? `  — ${terminalText(p.description)}` : ""
      }`,
    );
  }
  if (params.length > MAX_PARAMS_SHOWN) lines.push(`  … ${params.length - MAX_PARAMS_SHOWN} more`);
  lines.push("", "Input schema:", terminalJson(tool.inputSchema ?? {}));
  if (tool.outputSchema !== undefined) lines.push("", "Output schema:", terminalJson(tool.outputSchema));
  return lines.join("\n");
}

function toolResultText(result: Record<string, unknown>, files: ContentFiles): string {
  const content = Array.isArray(result.content) ? (result.content as Record<string, unknown>[]) : [];
  let body = content.map((c) => describeContent(c, files, width())).join("\n");
  if (!body && result.structuredContent !== undefined) body = terminalJson(result.structuredContent);
  if (!body) body = terminalJson(result, 0);
  return result.isError === true ? `Tool error: ${body}` : body;
}

function exitOf(error: unknown): number {
  if (error instanceof TimeoutError) return EXIT.timeout;
  if (error instanceof JsonRpcError || error instanceof ClientFeatureError) return EXIT.request;
  return EXIT.connect;
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

/** A failure on stderr as `what: message`, and with `--json` as `{"error":{"code","message","cause"}}` on stdout. */
function fail(what: string, error: unknown, json: boolean): void {
  process.stderr.write(`${what}: ${describe(error)}\n`);
  if (json) process.stdout.write(`${terminalJson({ error: failureOf(error) }, 0)}\n`);
}

/** A usage error: one line and a hint (the whole help is one `--help` away); exit 2. */
function usageFailure(error: UsageError, json: boolean): number {
  process.stderr.write(`${terminalText(error.message)}\n${USAGE_HINT}\n`);
  if (json) process.stdout.write(`${terminalJson({ error: failureOf(error) }, 0)}\n`);
  return EXIT.usage;
}

/** The line after a usage error. */
export const USAGE_HINT = "Run `onemodelcontext --help` for the commands and options.";

/** An error in plain words with its cause, made inert for the terminal and bounded: its message may quote the server. */
function describe(error: unknown): string {
  return terminalText(failureOf(error).message, { multiline: true });
}

const self = new URL(import.meta.url).pathname;
const invoked = process.argv[1] ? (await import("node:fs")).realpathSync(process.argv[1]) : "";
if (invoked === self || invoked === decodeURIComponent(self)) {
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (error) => {
      process.stderr.write(
        `Unexpected failure: ${terminalText(error?.stack ?? error, { multiline: true })}\n`,
      );
      process.exitCode = EXIT.failure;
    },
  );
}
