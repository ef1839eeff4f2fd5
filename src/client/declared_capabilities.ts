/**
 * `DeclaredCapabilities`: the client capabilities a {@linkcode ContextClient} declares, in
 * `initialize` and in every modern request's envelope.
 * @module
 */
import type { Capabilities } from "../wire/protocol_versions.ts";
import type { ClientInputs } from "./client_inputs.ts";

/**
 * What `inputs` implies, then the client's own `capabilities` option on top. A merge of both is
 * kept and handed out again while neither object changes, so the envelope text made from it is
 * reused.
 */
export class DeclaredCapabilities {
  readonly #options: { readonly capabilities?: Capabilities };
  readonly #inputs: ClientInputs;
  #merged: { own: Capabilities; implied: Capabilities; capabilities: Capabilities } | undefined;

  /** `options.capabilities` is read at each call, as the client's options object holds it then. */
  constructor(options: { readonly capabilities?: Capabilities }, inputs: ClientInputs) {
    this.#options = options;
    this.#inputs = inputs;
  }

  /** The capabilities to declare now. */
  current(): Capabilities {
    const own = this.#options.capabilities;
    const implied = this.#inputs.capabilities();
    if (own === undefined || Object.keys(own).length === 0) return implied;
    if (Object.keys(implied).length === 0) return own;
    const merged = this.#merged;
    if (merged?.own === own && merged.implied === implied) return merged.capabilities;
    const capabilities = { ...implied, ...own };
    this.#merged = { own, implied, capabilities };
    return capabilities;
  }
}
