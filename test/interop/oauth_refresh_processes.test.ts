// Seven processes refresh one rotating refresh token at once, against a loopback authorization server
// that revokes the whole token family when a spent refresh token comes back: with FileOAuthLock (and
// RedisOAuthLock on a real redis-server) there is one refresh and zero forced re-logins.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebStorageOAuthStore } from "../../src/auth/mod.ts";
import { ensureDist, ROOT } from "../fixtures/ours/build_dist.ts";
import { FileStorage } from "../fixtures/ours/file_storage.mjs";
import { type RedisServer, startRedisServer } from "../scaleout/fixtures/redis_server.ts";
import { RotatingRefreshServer } from "../src/auth/rotating_refresh_fixture.ts";
import { serveHandler } from "../src/auth/serve_handler.ts";

const PROCESSES = 7;
const CHILD = join(ROOT, "test/fixtures/ours/oauth_refresh_child.mjs");

interface Outcome {
  status: number | string;
  relogin: boolean;
}

/** Starts the children, waits until each printed "ready", then says "go" to all at once. */
async function race(server: RotatingRefreshServer, mode: string, where: string): Promise<Outcome[]> {
  const dir = mkdtempSync(join(tmpdir(), "oauth-refresh-"));
  try {
    const storage = join(dir, "tokens.json");
    new WebStorageOAuthStore(new FileStorage(storage)).saveTokens(server.mcpUrl, {
      ...server.seed(),
      resource: server.mcpUrl,
    });
    const children: ChildProcess[] = [];
    const ready: Promise<void>[] = [];
    const outcomes: Promise<Outcome>[] = [];
    for (let i = 0; i < PROCESSES; i++) {
      const child = spawn(process.execPath, [CHILD, server.mcpUrl, storage, mode, where], {
        cwd: ROOT,
        stdio: ["pipe", "pipe", "inherit"],
      });
      children.push(child);
      const lines = createInterface({ input: child.stdout! });
      const iterator = lines[Symbol.asyncIterator]();
      ready.push(iterator.next().then((line) => expect(line.value).toBe("ready")));
      outcomes.push(ready.at(-1)!.then(() => iterator.next()).then((line) => JSON.parse(String(line.value))));
    }
    await Promise.all(ready);
    for (const child of children) child.stdin!.write("go\n");
    return await Promise.all(outcomes);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("one refresh at a time across processes", () => {
  let redis: RedisServer | undefined;
  beforeAll(async () => {
    ensureDist();
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.kill();
  });

  for (const mode of ["file", "redis"] as const) {
    it(`${PROCESSES} processes with ${mode === "file" ? "FileOAuthLock" : "RedisOAuthLock"}: one refresh, zero forced re-logins`, async () => {
      const server = new RotatingRefreshServer();
      const http = await serveHandler(server.handler);
      server.origin = http.origin;
      const lockDir = mkdtempSync(join(tmpdir(), "oauth-locks-"));
      try {
        const outcomes = await race(server, mode, mode === "file" ? lockDir : String(redis!.port));
        expect(outcomes).toEqual(Array.from({ length: PROCESSES }, () => ({ status: 200, relogin: false })));
        expect(server.refreshRequests).toBe(1);
        expect(server.reuseDetected).toBe(0);
        expect(server.logins).toBe(0);
      } finally {
        await http.close();
        rmSync(lockDir, { recursive: true, force: true });
      }
    });
  }
});
