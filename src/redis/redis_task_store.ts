/**
 * `RedisTaskStore`: the task store shared by every replica of a server, over a user-supplied Redis
 * client typed structurally (node-redis v4 and later, or ioredis), as the listen bus is.
 * @module
 */
import type { TaskRecord } from "../tasks/task_record.ts";
import type { TaskStore } from "../tasks/task_store.ts";
import { withTimeout } from "../stream/time_kit.ts";
import { systemTimeProvider, type TimeProvider } from "../stream/time_provider.ts";
import { integerOption } from "../stream/options.ts";
import { InvalidOptionError, ProtocolError, TimeoutError } from "../wire/errors.ts";

/** A node-redis (v4 and later) client: `sendCommand(["GET", key])`. */
export interface NodeRedisCommandClient {
  sendCommand(args: string[]): Promise<unknown>;
}

/** An ioredis client: `call("GET", key)`. */
export interface IoredisCommandClient {
  call(command: string, ...args: string[]): Promise<unknown>;
}

/** Options of {@linkcode RedisTaskStore}. */
export interface RedisTaskStoreOptions {
  /** Any connected client (not one in subscriber mode). The store never closes it. */
  client: NodeRedisCommandClient | IoredisCommandClient;
  /**
   * Prefix of the task keys.
   * @default "onemodelcontext:task:"
   */
  keyPrefix?: string;
  /**
   * How long one Redis command may take before the operation rejects with `TimeoutError`, in ms.
   * @default 5000
   */
  commandTimeout?: number;
  /**
   * Compare-and-set retries of one `update` under concurrent writes.
   * @default 32
   */
  maxUpdateAttempts?: number;
  /**
   * Largest record, in UTF-16 code units of its JSON.
   * @default 1_048_576
   */
  maxRecordLength?: number;
  /**
   * The clock of `commandTimeout`.
   * @default the system clock
   */
  timeProvider?: TimeProvider;
}

/** Sets KEYS[1] to ARGV[2] (keeping its TTL) only while it still holds ARGV[1]. */
const COMPARE_AND_SET =
  "if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL') return 1 else return 0 end";

/**
 * Task records as JSON strings under `<keyPrefix><taskId>`, each with a Redis TTL of its `ttlMs`
 * (Redis forgets it; no sweep is needed). `create` is `SET NX PX`: once it resolves every replica's
 * `GET` finds the task. `update` is an optimistic compare-and-set (a Lua script), retried on a
 * concurrent write. The number of tasks is bounded by their TTL and Redis's own `maxmemory`.
 *
 * @example
 * ```ts
 * import { createClient } from "redis";
 * import { RedisTaskStore } from "onemodelcontext/redis";
 *
 * const client = await createClient({ url: process.env.REDIS_URL }).connect();
 * const store = new RedisTaskStore({ client });
 * ```
 */
export class RedisTaskStore implements TaskStore {
  readonly keyPrefix: string;
  readonly #command: (args: string[]) => Promise<unknown>;
  readonly #timeout: number;
  readonly #attempts: number;
  readonly #maxLength: number;
  readonly #time: TimeProvider;

  constructor(options: RedisTaskStoreOptions) {
    const client = options?.client as Partial<NodeRedisCommandClient & IoredisCommandClient> | undefined;
    if (typeof client?.sendCommand === "function") {
      this.#command = (args) => client.sendCommand!(args);
    } else if (typeof client?.call === "function") {
      this.#command = ([command, ...rest]) => client.call!(command, ...rest);
    } else {
      throw new InvalidOptionError(
        "Option client must be a node-redis client (sendCommand) or an ioredis client (call)",
      );
    }
    this.keyPrefix = options.keyPrefix ?? "onemodelcontext:task:";
    this.#timeout = integerOption("commandTimeout", options.commandTimeout, 5000, 1);
    this.#attempts = integerOption("maxUpdateAttempts", options.maxUpdateAttempts, 32, 1);
    this.#maxLength = integerOption("maxRecordLength", options.maxRecordLength, 1_048_576, 256);
    this.#time = options.timeProvider ?? systemTimeProvider;
  }

  async create(record: TaskRecord): Promise<void> {
    const text = this.#encode(record);
    const args = ["SET", this.#key(record.taskId), text, "NX"];
    if (record.ttlMs !== null) args.push("PX", String(record.ttlMs));
    const reply = await this.#run(args);
    if (reply !== "OK") throw new ProtocolError(`Task ${record.taskId} exists already in Redis`);
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    const text = await this.#run(["GET", this.#key(taskId)]);
    return text === null || text === undefined ? undefined : this.#decode(taskId, text);
  }

  async update(
    taskId: string,
    change: (current: TaskRecord) => TaskRecord | undefined,
  ): Promise<TaskRecord | undefined> {
    const key = this.#key(taskId);
    for (let attempt = 0; attempt < this.#attempts; attempt++) {
      const text = await this.#run(["GET", key]);
      if (text === null || text === undefined) return undefined;
      const current = this.#decode(taskId, text);
      const next = change(structuredClone(current));
      if (next === undefined) return current;
      const written = await this.#run(["EVAL", COMPARE_AND_SET, "1", key, String(text), this.#encode(next)]);
      if (Number(written) === 1) return next;
    }
    throw new ProtocolError(
      `Task ${taskId} changed under ${this.#attempts} consecutive updates (maxUpdateAttempts): giving up`,
    );
  }

  #key(taskId: string): string {
    return this.keyPrefix + taskId;
  }

  #encode(record: TaskRecord): string {
    const text = JSON.stringify(record);
    if (text.length > this.#maxLength) {
      throw new ProtocolError(
        `Task ${record.taskId} is ${text.length} characters of JSON, more than maxRecordLength (${this.#maxLength})`,
      );
    }
    return text;
  }

  #decode(taskId: string, text: unknown): TaskRecord {
    try {
      const value = JSON.parse(String(text));
      if (typeof value?.taskId === "string" && typeof value.status === "string") return value as TaskRecord;
    } catch {
      // reported below
    }
    throw new ProtocolError(`Task ${taskId} in Redis is not a task record`);
  }

  #run(args: string[]): Promise<unknown> {
    return withTimeout(this.#time, this.#command(args), this.#timeout, {
      error: () =>
        new TimeoutError(
          `Redis ${args[0]} of the task store took longer than commandTimeout (${this.#timeout} ms)`,
          this.#timeout,
        ),
    });
  }
}
