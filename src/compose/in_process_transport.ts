/**
 * `inProcessTransport`: a `ContextServer` reached by a client in the same process, over a pair of
 * in-memory byte streams (the server's own stream transport: both eras, every feature).
 * @module
 */
import type { Duplex } from "../stream/duplex.ts";
import type { ClientTransport, TransportConnection } from "../rpc/transport.ts";

/** What `inProcessTransport` serves: a `ContextServer` fits. */
export interface ServesStreams {
  serve(transport: Duplex): Promise<unknown>;
}

/** A {@linkcode ClientTransport} to `server`: each `open()` serves one fresh in-memory connection. */
export function inProcessTransport(
  server: ServesStreams,
  onReport?: (error: Error) => void,
): ClientTransport {
  return {
    canRespawn: true,
    open(): TransportConnection {
      const toServer = new TransformStream<Uint8Array, Uint8Array>();
      const toClient = new TransformStream<Uint8Array, Uint8Array>();
      server.serve({ readable: toServer.readable, writable: toClient.writable }).catch((error: unknown) =>
        onReport?.(error instanceof Error ? error : new Error(String(error)))
      );
      return { readable: toClient.readable, writable: toServer.writable };
    },
  };
}
