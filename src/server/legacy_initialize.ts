/**
 * `answerInitialize`: the legacy era's `initialize`: negotiates the version, opens the connection's
 * legacy session, and answers with the server's info and its capabilities as a legacy client sees them.
 * @module
 */
import { ErrorCodes, JsonRpcError } from "../wire/errors.ts";
import { isImplementation, isPlainObject } from "../wire/meta_envelope.ts";
import type { Capabilities, Implementation } from "../wire/protocol_versions.ts";
import { TASKS_EXTENSION } from "../tasks/task_record.ts";
import { invalidParams, type ServerVersions } from "../wire/server_versions.ts";
import type { ServerSession } from "./dispatch_context.ts";

/** What `initialize` reads from its server (read per call: capabilities follow what is registered). */
export interface LegacyInitializeServer {
  serverInfo: Implementation;
  capabilities: Capabilities;
  instructions: string | undefined;
  versions: ServerVersions;
}

/**
 * Answers a legacy `initialize`: throws -32602 on params without a string `protocolVersion` and
 * -32600 on a second `initialize` on the same connection.
 */
export function answerInitialize(
  server: LegacyInitializeServer,
  session: ServerSession | undefined,
  params: unknown,
): unknown {
  if (!isPlainObject(params) || typeof params.protocolVersion !== "string") {
    throw invalidParams("Invalid initialize params: protocolVersion must be a string");
  }
  if (session?.legacy !== undefined) {
    throw new JsonRpcError(
      ErrorCodes.InvalidRequest,
      "Invalid request: initialize was already answered on this connection",
    );
  }
  const protocolVersion = server.versions.negotiateLegacy(params.protocolVersion);
  if (session) {
    session.legacy = {
      protocolVersion,
      clientInfo: isImplementation(params.clientInfo) ? params.clientInfo : undefined,
      clientCapabilities: isPlainObject(params.capabilities) ? params.capabilities : {},
    };
  }
  const result: Record<string, unknown> = {
    protocolVersion,
    capabilities: legacyCapabilities(server.capabilities),
    serverInfo: server.serverInfo,
  };
  if (server.instructions !== undefined) result.instructions = server.instructions;
  return result;
}

/**
 * The capabilities a legacy `initialize` answers: the tasks extension (2026-07-28) left out, since a
 * legacy session runs every tool synchronously; other extensions (MCP Apps) stay.
 */
function legacyCapabilities(capabilities: Capabilities): Capabilities {
  const extensions = capabilities.extensions;
  if (!isPlainObject(extensions) || !(TASKS_EXTENSION in extensions)) return capabilities;
  const { [TASKS_EXTENSION]: _tasks, ...others } = extensions;
  const { extensions: _all, ...rest } = capabilities;
  return Object.keys(others).length === 0 ? rest : { ...rest, extensions: others };
}
