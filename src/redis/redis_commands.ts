/**
 * One way to send a Redis command through either client, typed structurally: node-redis
 * (`sendCommand(args)`) or ioredis (`call(command, ...args)`).
 * @module
 */
import { InvalidOptionError } from "../wire/errors.ts";

/** A node-redis (v4 and later) client: `sendCommand(["SET", key, value])`. */
export interface NodeRedisCommands {
  sendCommand(args: string[]): Promise<unknown>;
}

/** An ioredis client: `call("SET", key, value)`. */
export interface IoredisCommands {
  call(command: string, ...args: string[]): Promise<unknown>;
}

/** A connected Redis client of either kind (not a subscriber connection). */
export type RedisCommandClient = NodeRedisCommands | IoredisCommands;

/** Sends `args` (command first) through `client`. */
export function redisCommand(client: RedisCommandClient, args: string[]): Promise<unknown> {
  // ioredis has a sendCommand too, of another shape: `call` tells it apart.
  if (typeof (client as IoredisCommands).call === "function") {
    return (client as IoredisCommands).call(args[0]!, ...args.slice(1));
  }
  return (client as NodeRedisCommands).sendCommand(args);
}

/** Throws `InvalidOptionError` unless `client` can send commands. */
export function checkCommandClient(name: string, client: unknown): asserts client is RedisCommandClient {
  const c = client as Partial<NodeRedisCommands & IoredisCommands> | null | undefined;
  if (typeof c?.sendCommand !== "function" && typeof c?.call !== "function") {
    throw new InvalidOptionError(
      `Option ${name} must be a connected node-redis client (sendCommand) or ioredis client (call)`,
    );
  }
}
