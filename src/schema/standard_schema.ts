/**
 * Standard Schema v1 (https://standardschema.dev) and its JSON Schema extension, typed structurally so
 * zod 4, valibot, arktype and any other conforming library work without being imported.
 * @module
 */
/** One problem reported by a Standard Schema `validate`. */
export interface StandardIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

/** The result of a Standard Schema `validate`: a value, or issues. */
export type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<StandardIssue> };

/** The Standard JSON Schema converter (`~standard.jsonSchema`), offered by zod 4.2+, arktype 2.1.28+, valibot through `toStandardJsonSchema`. */
export interface StandardJsonSchemaConverter {
  readonly input: (
    options: { readonly target: string; readonly libraryOptions?: Record<string, unknown> },
  ) => Record<string, unknown>;
  readonly output: (
    options: { readonly target: string; readonly libraryOptions?: Record<string, unknown> },
  ) => Record<string, unknown>;
}

/** The `~standard` property of a Standard Schema value. */
export interface StandardSchemaProps<Input = unknown, Output = Input> {
  readonly version: 1;
  readonly vendor: string;
  readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
  readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  readonly jsonSchema?: StandardJsonSchemaConverter;
}

/** A Standard Schema v1 value: a zod 4 schema, a valibot schema, an arktype type… */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": StandardSchemaProps<Input, Output>;
}

/** The type a Standard Schema value produces when validation succeeds. */
export type StandardOutput<S extends StandardSchemaV1> = NonNullable<S["~standard"]["types"]>["output"];

/** True for a Standard Schema v1 value (an object or, like arktype's types, a function). */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return false;
  const props = (value as { "~standard"?: unknown })["~standard"];
  return typeof props === "object" && props !== null &&
    (props as { version?: unknown }).version === 1 &&
    typeof (props as { validate?: unknown }).validate === "function";
}

/** Which side of a transforming schema to describe: what the peer sends (`input`) or what we produce (`output`). */
export type SchemaRole = "input" | "output";

/**
 * The JSON Schema a Standard Schema library derives for `schema` itself: the Standard JSON Schema
 * extension (2020-12, or draft-07 if the library refuses 2020-12), then arktype's `toJsonSchema()` and
 * zod 4's `toJSONSchema()` methods. `undefined` when the library offers none (valibot without
 * `toStandardJsonSchema`). A converter that throws propagates.
 */
export function libraryJsonSchema(
  schema: StandardSchemaV1,
  io: SchemaRole,
): Record<string, unknown> | undefined {
  const props = schema["~standard"];
  const converter = props.jsonSchema;
  if (converter && typeof converter[io] === "function") {
    try {
      return converter[io]({ target: "draft-2020-12" });
    } catch (first) {
      try {
        return converter[io]({ target: "draft-07" });
      } catch {
        throw first;
      }
    }
  }
  const methods = schema as unknown as { toJsonSchema?: unknown; toJSONSchema?: unknown };
  if (props.vendor === "arktype" && typeof methods.toJsonSchema === "function") {
    return (methods.toJsonSchema as () => Record<string, unknown>).call(schema);
  }
  if (props.vendor === "zod" && typeof methods.toJSONSchema === "function") {
    return (methods.toJSONSchema as (options: { io: SchemaRole }) => Record<string, unknown>).call(schema, {
      io,
    });
  }
  return undefined;
}
