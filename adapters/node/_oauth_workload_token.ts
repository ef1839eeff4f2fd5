/**
 * The workload identity token of a process on Node, read from a file (SEP-1933): Kubernetes projected
 * service account tokens, `AZURE_FEDERATED_TOKEN_FILE`, GitHub Actions or SPIFFE helpers write the
 * token to a file and rotate it in place.
 * @module
 */
import { readFile } from "node:fs/promises";
import { AuthError } from "../../src/auth/errors.ts";

/**
 * A token source for `OAuthClientOptions.workloadIdentity.token` that reads `path` at every grant,
 * so a token rotated on disk is picked up. An unreadable or empty file rejects with
 * {@linkcode AuthError} code `invalid_option`.
 *
 * @example
 * ```ts
 * withOAuth(fetch, { workloadIdentity: { token: workloadTokenFile("/var/run/secrets/tokens/mcp") } });
 * ```
 */
export function workloadTokenFile(path: string): () => Promise<string> {
  return async () => {
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (cause) {
      throw new AuthError(
        "invalid_option",
        `The workload identity token file ${path} cannot be read: ${(cause as Error).message}`,
        { cause },
      );
    }
    const token = text.trim();
    if (token === "") {
      throw new AuthError("invalid_option", `The workload identity token file ${path} is empty`);
    }
    return token;
  };
}
