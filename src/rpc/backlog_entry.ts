/**
 * One input message read and not yet dispatched, and what it costs in {@linkcode InputBacklog}'s accounting.
 * @module
 */
import type { ClassifiedMessage, IncomingRequest } from "../wire/json_rpc_message.ts";

/** What one waiting input message costs in the backlog's accounting, besides its text. */
export const ENTRY_OVERHEAD_BYTES = 64;

/** One input message read and not yet dispatched. */
export interface BacklogEntry {
  bytes: number;
  request?: IncomingRequest;
  key?: string;
  notification?: { method: string; params: unknown };
  /** A JSON-RPC batch (only where `acceptsBatch` allows it): its elements, classified. */
  batch?: ClassifiedMessage[];
  /** An error reply the connection owes for a bad line. */
  reply?: Record<string, unknown>;
}
