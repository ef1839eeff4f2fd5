/**
 * `ResourceRegistry`: static resources and resource templates, `resources/list`,
 * `resources/templates/list` and `resources/read`.
 * @module
 */
import { ErrorCodes, InvalidOptionError, JsonRpcError } from "../../wire/errors.ts";
import { isPlainObject } from "../../wire/meta_envelope.ts";
import type { Annotations, Icon } from "../../wire/protocol/v2026_07_28.ts";
import type { FeatureRequestContext } from "./feature_host.ts";
import { FeatureRegistry, type FeatureRegistryOptions } from "./feature_registry.ts";
import type { HandlerContext } from "./handler_context.ts";
import { UriTemplate, type UriVariables } from "./uri_template.ts";

/** One item of `resources/read` contents: text or base64 `blob`. */
export type ResourceContents =
  | { uri: string; mimeType?: string; text: string; _meta?: Record<string, unknown> }
  | { uri: string; mimeType?: string; blob: string; _meta?: Record<string, unknown> };

/**
 * What a read callback returns: a full result (`{ contents }`), one content item without its `uri`
 * (`{ text }` / `{ blob }`), a string (text) or a `Uint8Array` (sent as base64 `blob`).
 */
export type ResourceRead =
  | {
    contents: ResourceContents[];
    ttlMs?: number;
    cacheScope?: "public" | "private";
    _meta?: Record<string, unknown>;
  }
  | { text: string; mimeType?: string }
  | { blob: string; mimeType?: string }
  | string
  | Uint8Array;

/** A resource as `resources/list` shows it. */
export interface ResourceInfo {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
}

/** Describes a static resource. Give `text` or `blob` for fixed content, or a read callback. */
export interface ResourceConfig extends Partial<Omit<ResourceInfo, "uri">> {
  /** Fixed text content. */
  text?: string;
  /** Fixed binary content (base64 when a string). */
  blob?: string | Uint8Array;
}

/** Reads a static resource. */
export type ResourceReader = (uri: string, context: HandlerContext) => ResourceRead | Promise<ResourceRead>;

/** Suggests values for one variable or argument (`completion/complete`). */
export type Completer = (
  value: string,
  context: { readonly arguments: Readonly<Record<string, string>>; readonly handler: HandlerContext },
) => readonly string[] | Promise<readonly string[]>;

/** Describes a resource template. */
export interface ResourceTemplateConfig extends Partial<Omit<ResourceInfo, "uri" | "size">> {
  /** Lists the concrete resources of this template in `resources/list`. */
  list?: (context: HandlerContext) => readonly ResourceInfo[] | Promise<readonly ResourceInfo[]>;
  /** Completers of template variables, by variable name. */
  complete?: Readonly<Record<string, Completer>>;
}

/** Reads a resource of a template; `variables` are the template's variables in the URI. */
export type ResourceTemplateReader = (
  uri: string,
  variables: UriVariables,
  context: HandlerContext,
) => ResourceRead | Promise<ResourceRead>;

/** A registered resource or template; `remove()` takes it off the server. */
export interface RegisteredResource {
  /** The resource URI or the URI template. */
  readonly uri: string;
  remove(): void;
}

/** Options of {@linkcode ResourceRegistry}. */
export interface ResourceRegistryOptions extends FeatureRegistryOptions {
  /** The longest URI matched against templates. */
  maxUriLength: number;
}

interface StaticEntry {
  readonly info: ResourceInfo;
  readonly read: ResourceReader;
}

interface TemplateEntry {
  readonly template: UriTemplate;
  readonly wire: Record<string, unknown>;
  readonly config: ResourceTemplateConfig;
  readonly read: ResourceTemplateReader;
}

/** The resources and resource templates of one server. */
export class ResourceRegistry extends FeatureRegistry<ResourceRegistryOptions> {
  readonly #resources = new Map<string, StaticEntry>();
  readonly #templates = new Map<string, TemplateEntry>();

  /** Resources plus templates registered now. */
  get size(): number {
    return this.#resources.size + this.#templates.size;
  }

  /** Registers a static resource. Throws {@linkcode InvalidOptionError} for a taken URI or when neither content nor a reader is given. */
  addResource(uri: string, config: ResourceConfig, read?: ResourceReader): RegisteredResource {
    if (typeof uri !== "string" || uri.length === 0) {
      throw new InvalidOptionError(`A resource URI must be a non-empty string, got ${JSON.stringify(uri)}`);
    }
    this.assertFree(this.#resources, uri, `Resource ${uri}`);
    const { text, blob, name, ...rest } = config ?? {};
    const info: ResourceInfo = { uri, name: name ?? uri, ...rest };
    let reader = read;
    if (reader === undefined) {
      if (text === undefined && blob === undefined) {
        throw new InvalidOptionError(`Resource ${uri} needs text, blob or a read callback`);
      }
      const fixed: ResourceRead = text !== undefined
        ? { text }
        : { blob: typeof blob === "string" ? blob : toBase64(blob!) };
      reader = () => fixed;
    } else if (typeof reader !== "function") {
      throw new InvalidOptionError(
        `Resource ${uri}: the read callback must be a function, got ${typeof reader}`,
      );
    }
    const entry: StaticEntry = { info, read: reader };
    return { uri, remove: this.register(this.#resources, uri, entry) };
  }

  /** Registers a resource template (RFC 6570 levels 1–3). */
  addTemplate(
    uriTemplate: string,
    config: ResourceTemplateConfig,
    read: ResourceTemplateReader,
  ): RegisteredResource {
    const template = new UriTemplate(uriTemplate);
    this.assertFree(this.#templates, uriTemplate, `Resource template ${uriTemplate}`);
    if (typeof read !== "function") {
      throw new InvalidOptionError(
        `Resource template ${uriTemplate} needs a read callback, got ${typeof read}`,
      );
    }
    const { list, complete, name, ...rest } = config ?? {};
    if (list !== undefined && typeof list !== "function") {
      throw new InvalidOptionError(`Resource template ${uriTemplate}: list must be a function`);
    }
    for (const [variable, completer] of Object.entries(complete ?? {})) {
      if (!template.variables.includes(variable)) {
        throw new InvalidOptionError(
          `Resource template ${uriTemplate} has no variable ${
            JSON.stringify(variable)
          } to complete (variables: ${template.variables.join(", ") || "none"})`,
        );
      }
      if (typeof completer !== "function") {
        throw new InvalidOptionError(
          `Resource template ${uriTemplate}: the completer of ${variable} must be a function`,
        );
      }
    }
    const wire: Record<string, unknown> = { uriTemplate, name: name ?? uriTemplate, ...rest };
    const entry: TemplateEntry = { template, wire, config: config ?? {}, read };
    return { uri: uriTemplate, remove: this.register(this.#templates, uriTemplate, entry) };
  }

  /** The completer of variable `name` of the template `uriTemplate`: `null` for no such template, `undefined` for no completer. */
  completerOf(uriTemplate: string, name: string): Completer | undefined | null {
    const entry = this.#templates.get(uriTemplate);
    if (!entry) return null;
    const complete = entry.config.complete;
    return complete && Object.hasOwn(complete, name) ? complete[name] : undefined;
  }

  /** `resources/list`: static resources, then what each template's `list` callback names. */
  async list(params: unknown, context: FeatureRequestContext): Promise<Record<string, unknown>> {
    const all: ResourceInfo[] = [...this.#resources.values()].map((entry) => entry.info);
    const listing = [...this.#templates.values()].filter((entry) => entry.config.list !== undefined);
    if (listing.length > 0) {
      const handler = this.handlerContext(context, params);
      for (const entry of listing) all.push(...(await entry.config.list!(handler)));
    }
    return this.listPage("resources", "resources", all, params, context);
  }

  /** `resources/templates/list`. */
  listTemplates(params: unknown, context: FeatureRequestContext): Record<string, unknown> {
    const all = [...this.#templates.values()].map((entry) => entry.wire);
    return this.listPage("resources/templates", "resourceTemplates", all, params, context);
  }

  /**
   * `resources/read`: an exact static URI first, then the templates in registration order. An unknown
   * URI answers -32602 in the modern era and -32002 in the legacy era, with `data.uri`.
   */
  async read(params: unknown, context: FeatureRequestContext): Promise<unknown> {
    const uri = isPlainObject(params) ? params.uri : undefined;
    if (typeof uri !== "string") {
      throw new JsonRpcError(ErrorCodes.InvalidParams, "Invalid params: uri must be a string");
    }
    const handler = this.handlerContext(context, params);
    const resource = this.#resources.get(uri);
    if (resource) return contentsOf(await resource.read(uri, handler), uri, resource.info.mimeType);
    if (uri.length > this.options.maxUriLength) {
      throw new JsonRpcError(
        ErrorCodes.InvalidParams,
        `Invalid params: uri is ${uri.length} characters long, more than maxUriLength ${this.options.maxUriLength}`,
      );
    }
    for (const entry of this.#templates.values()) {
      const variables = entry.template.match(uri);
      if (variables) {
        return contentsOf(
          await entry.read(uri, variables, handler),
          uri,
          entry.wire.mimeType as string | undefined,
        );
      }
    }
    const code = context.era === "modern" ? ErrorCodes.InvalidParams : RESOURCE_NOT_FOUND;
    throw new JsonRpcError(code, `Resource not found: ${uri}`, { uri });
  }
}

/** The default longest URI `resources/read` matches against templates. */
export const DEFAULT_MAX_URI_LENGTH = 16_384;

/** The legacy (2025-11-25) "resource not found" code; the modern era uses -32602. */
export const RESOURCE_NOT_FOUND = -32002;

function contentsOf(read: ResourceRead, uri: string, mimeType: string | undefined): unknown {
  if (typeof read === "string") return { contents: [withMime({ uri, text: read }, mimeType)] };
  if (read instanceof Uint8Array) return { contents: [withMime({ uri, blob: toBase64(read) }, mimeType)] };
  if (!isPlainObject(read)) {
    throw new JsonRpcError(
      ErrorCodes.InternalError,
      `The reader of ${uri} returned ${read === null ? "null" : typeof read}, not resource contents`,
    );
  }
  if ("contents" in read) {
    if (!Array.isArray(read.contents) || read.contents.length === 0) {
      // An empty array would read as "exists but empty" or "does not exist": the spec forbids it for a missing resource.
      throw new JsonRpcError(ErrorCodes.InternalError, `The reader of ${uri} returned no contents`);
    }
    return read;
  }
  const item = { uri, ...read } as Record<string, unknown>;
  return { contents: [item.mimeType === undefined ? withMime(item, mimeType) : item] };
}

function withMime<T extends Record<string, unknown>>(item: T, mimeType: string | undefined): T {
  return mimeType === undefined ? item : { ...item, mimeType };
}

/** Base64 of `bytes` (web APIs only). */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}
