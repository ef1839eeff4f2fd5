/**
 * `onemodelcontext serve --http PORT --config FILE`: the two servers of a config file (an
 * `mcpServers` file, and VS Code's `servers` form) behind one endpoint, tools named
 * `{server}_{tool}`, in both eras; a child that dies is started again; SIGINT leaves no child.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDist } from "../fixtures/ours/build_dist.ts";
import { alive, cli, CliChild, DEMO, EVERYTHING } from "./cli_helpers.ts";

let gateway: CliChild;
let url: string;
let dir: string;

/** A stdio entry whose every start appends `name pid` to the pid file. */
function recorded(name: string, script: string) {
  return {
    command: "sh",
    args: ["-c", 'echo "$1 $$" >> "$0"; exec "$2" "$3"', join(dir, "pids"), name, process.execPath, script],
  };
}

function pids(name?: string): number[] {
  return readFileSync(join(dir, "pids"), "utf8").trim().split("\n").map((line) => line.split(" "))
    .filter(([n]) => name === undefined || n === name).map(([, pid]) => Number(pid));
}

beforeAll(async () => {
  ensureDist();
  dir = mkdtempSync(join(tmpdir(), "cli-gw-config-"));
  const file = join(dir, "mcp.json");
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: { everything: recorded("everything", EVERYTHING), demo: recorded("demo", DEMO) },
    }),
  );
  gateway = new CliChild(["serve", "--http", "0", "--config", file]);
  await gateway.waitFor("stderr", /serving (http:\S+)/);
  url = /serving (http:\S+)/.exec(gateway.stderr)![1]!;
}, 120_000);
afterAll(() => {
  if (gateway.child.exitCode === null) gateway.child.kill("SIGKILL");
});

describe("serve --config", () => {
  it("serves both servers' tools as {server}_{tool}, in both eras", () => {
    expect(gateway.stderr).toMatch(/2 of 2 servers mounted: everything, demo/);
    for (const era of ["modern", "legacy"]) {
      const inspect = cli("inspect", "--json", "-q", "--era", era, "--url", url);
      expect(inspect.code).toBe(0);
      const tools = JSON.parse(inspect.stdout).tools.map((t: { name: string }) => t.name);
      expect(tools).toContain("everything_test_simple_text");
      expect(tools).toContain("demo_echo");
      const call = cli("call", "demo_echo", "text=hi", "-q", "--era", era, "--url", url);
      expect(call.code).toBe(0);
      expect(call.stdout).toContain("hi");
    }
    const progress = cli("call", "everything_test_tool_with_progress", "--url", url);
    expect(progress.stderr).toContain("50% Completed step 50 of 100");
    const read = cli("read", "test://static-text", "-q", "--url", url);
    expect(read.stdout).toContain("This is the content of the static text resource.");
  });

  it("starts a child that died again, and its tools come back", async () => {
    const [first] = pids("demo");
    process.kill(first!, "SIGKILL");
    while (pids("demo").length < 2) await new Promise((r) => setTimeout(r, 25)); // readiness: the restart's pid
    let call = cli("call", "demo_echo", "text=again", "-q", "--url", url);
    while (call.code !== 0) { // mounted once its tools are listed: retried until then, never timed
      await new Promise((r) => setTimeout(r, 50));
      call = cli("call", "demo_echo", "text=again", "-q", "--url", url);
    }
    expect(call.stdout).toContain("again");
    expect(gateway.stderr).toMatch(/server demo ended; starting it again/);
  });

  it("SIGINT stops the gateway and leaves no child", async () => {
    expect(pids().filter(alive).length).toBe(2);
    gateway.child.kill("SIGINT");
    expect(await gateway.exited).toBe(0);
    for (const pid of pids()) expect(alive(pid)).toBe(false);
  });

  it("reads VS Code's servers form too", async () => {
    const file = join(dir, "vscode.json");
    writeFileSync(
      file,
      JSON.stringify({ servers: { "my.demo": { type: "stdio", ...recorded("vs", DEMO) } } }),
    );
    const vs = new CliChild(["serve", "--http", "0", "--config", file]);
    await vs.waitFor("stderr", /serving (http:\S+)/);
    const vsUrl = /serving (http:\S+)/.exec(vs.stderr)![1]!;
    const call = cli("call", "my-demo_echo", "text=vs", "-q", "--url", vsUrl);
    expect(call.stdout).toContain("vs");
    vs.child.kill("SIGINT");
    expect(await vs.exited).toBe(0);
    for (const pid of pids("vs")) expect(alive(pid)).toBe(false);
  });
});
