/**
 * Every default docs/options.md and docs/http.md state for a bound that code exposes is the one the
 * code applies (issue 25 item 22): the table is read and each row compared with the resolved value
 * of an object built without options, or the exported default. A default changed on one side only
 * fails here; the behaviour at each bound is tested where the bound lives.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DEFAULT_RECEIVE_WINDOW_BYTES as DEFAULT_MESSAGE_PORT_WINDOW } from "../../adapters/message_port/mod.ts";
import { ClientInputs } from "../../src/client/client_inputs.ts";
import { DEFAULT_ERA_CACHE_MAX_ENTRIES, EraCache } from "../../src/client/era_cache.ts";
import {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_IDLE_TIMEOUT,
} from "../../src/http/server/legacy/legacy_session_table.ts";
import {
  DEFAULT_HTTP_SHUTDOWN_TIMEOUT,
  DEFAULT_MAX_STREAMS,
} from "../../src/http/server/create_http_handler.ts";
import { DEFAULT_MAX_BODY_BYTES } from "../../src/http/server/read_json_body.ts";
import {
  DEFAULT_KEEP_ALIVE_INTERVAL,
  DEFAULT_MAX_BUFFERED_BYTES,
} from "../../src/http/server/sse/sse_stream.ts";
import { DEFAULT_MAX_URI_LENGTH } from "../../src/server/features/resource_registry.ts";
import { RequestStateCodec } from "../../src/server/input/request_state.ts";
import { NewlineChannel } from "../../src/stream/newline_channel.ts";
import { createDuplexPair } from "../../testing/duplex_pair.ts";

/** `| \`name\` | default | …` rows of the tables of `file`, by the first cell without backticks. */
function tableDefaults(file: string): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of readFileSync(new URL(`../../docs/${file}`, import.meta.url), "utf8").split("\n")) {
    const cells = line.split("|").map((cell) => cell.trim());
    if (cells.length < 4 || !cells[1]!.startsWith("`")) continue;
    rows.set(cells[1]!.replaceAll("`", ""), cells[2]!);
  }
  return rows;
}

/** "16 MiB" → 16 777 216, "86 400 000 (24 h)" → 86 400 000, "5 000" → 5 000. */
function amount(text: string): number {
  const match = /^([\d ]+)\s*(KiB|MiB)?/.exec(text);
  if (match === null) throw new Error(`No amount in ${JSON.stringify(text)}`);
  const value = Number(match[1]!.replaceAll(" ", ""));
  return match[2] === "MiB" ? value * 1024 * 1024 : match[2] === "KiB" ? value * 1024 : value;
}

describe("the documented defaults are the applied ones", () => {
  it("docs/options.md", () => {
    const rows = tableDefaults("options.md");
    const channel = new NewlineChannel(createDuplexPair()[0]);
    const inputs = new ClientInputs();
    const codec = new RequestStateCodec();
    const cache = new EraCache();
    const applied: Record<string, number> = {
      maxQueuedOutputBytes: channel.maxQueuedOutputBytes,
      writeBlockBytes: channel.writeBlockBytes,
      maxMessageBytes: channel.maxMessageBytes,
      "features.maxUriLength": DEFAULT_MAX_URI_LENGTH,
      "requestState.stateTtl": codec.stateTtl,
      maxInputRounds: inputs.maxInputRounds,
      stateOnlyRetryDelay: inputs.stateOnlyRetryDelay,
      legacyLifetime: cache.legacyLifetime,
      modernLifetime: cache.modernLifetime,
      maxEntries: cache.maxEntries,
      receiveWindowBytes: DEFAULT_MESSAGE_PORT_WINDOW,
    };
    for (const [name, value] of Object.entries(applied)) {
      expect(rows.has(name), `docs/options.md has a row for ${name}`).toBe(true);
      expect(amount(rows.get(name)!), name).toBe(value);
    }
    expect(cache.maxEntries).toBe(DEFAULT_ERA_CACHE_MAX_ENTRIES);
    const [state, payload] = rows.get("requestState.maxStateBytes / maxPayloadBytes")!.split("/").map(amount);
    expect([state, payload]).toEqual([codec.maxStateBytes, codec.maxPayloadBytes]);
    void channel.close();
  });

  it("docs/http.md", () => {
    const rows = tableDefaults("http.md");
    const applied: Record<string, number> = {
      maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
      maxBufferedBytes: DEFAULT_MAX_BUFFERED_BYTES,
      keepAliveInterval: DEFAULT_KEEP_ALIVE_INTERVAL,
      maxStreams: DEFAULT_MAX_STREAMS,
      "sessions.maxSessions": DEFAULT_MAX_SESSIONS,
      "sessions.idleTimeout": DEFAULT_SESSION_IDLE_TIMEOUT,
      shutdownTimeout: DEFAULT_HTTP_SHUTDOWN_TIMEOUT,
    };
    for (const [name, value] of Object.entries(applied)) {
      expect(rows.has(name), `docs/http.md has a row for ${name}`).toBe(true);
      expect(amount(rows.get(name)!), name).toBe(value);
    }
  });
});
