/**
 * The seam between the core and the runtime adapters: what a client connects through.
 * @module
 */
import type { Duplex } from "../stream/duplex.ts";

/**
 * One live connection to a server: a duplex byte pair plus what a process-backed adapter knows.
 * Adapters fill in the optional members; a plain in-memory duplex needs none of them.
 */
export interface TransportConnection extends Duplex {
  /** True when this connection's process was just started (its first probe gets `processStartupAllowance`). */
  readonly newlySpawned?: boolean;
  /**
   * Why the peer went away, once known: for a process, a `ProcessExitedError` with exit code, signal
   * and stderr tail. A process adapter ends `readable` only after the exit status is known (or a short
   * bound has passed), so the connection can use it when input ends.
   */
  closeError?(): Error | undefined;
  /**
   * Settles once the peer is gone for good (for a process: exited and reaped), after which
   * `closeError()` holds its account. Lets a caller wait for that account without polling.
   */
  readonly exited?: Promise<unknown>;
  /** Tears the handles down now (used when a drain runs out of time). */
  destroy?(reason?: unknown): void;
  /**
   * Ends the connection the graceful way and releases its resources, bounded: for a process, close
   * stdin, then the adapter's bounded close sequence. Resolves when it is gone.
   */
  close?(): Promise<void>;
}

/** What {@linkcode ContextClient.connect} takes: a source of connections, maybe respawnable. */
export interface ClientTransport {
  /** Opens a connection. Called again only when `canRespawn` is true, after the previous one died. */
  open(): TransportConnection | Promise<TransportConnection>;
  /** True when `open` may be called again to start a fresh server (a spawned process). */
  readonly canRespawn: boolean;
  /** Identifies the server for the era cache; process transports use command, args and cwd. */
  readonly cacheKey?: string;
}

/** True when `value` looks like a {@linkcode ClientTransport} rather than a bare duplex. */
export function isClientTransport(value: unknown): value is ClientTransport {
  return typeof value === "object" && value !== null && typeof (value as ClientTransport).open === "function";
}

/** Wraps a single duplex as a transport that cannot respawn. */
export function singleConnection(connection: TransportConnection, cacheKey?: string): ClientTransport {
  let opened = false;
  return {
    canRespawn: false,
    cacheKey,
    open() {
      if (opened) throw new Error("Cannot reopen a single duplex connection: it cannot be respawned");
      opened = true;
      return connection;
    },
  };
}
