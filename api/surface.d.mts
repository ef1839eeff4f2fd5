/** Types of api/surface.mjs, for the tests that import it. */
export declare const ROOT: string;
export interface ExportedName {
  name: string;
  kind: "value" | "type";
}
export interface EntrySnapshot {
  text: string;
  values: number;
  types: number;
  names: ExportedName[];
}
export interface AnyCount {
  file: string;
  count: number;
  lines: string[];
}
export declare function snapshotName(subpath: string): string;
export declare function stripComments(text: string): string;
export declare function topLevelStatements(text: string): string[];
export declare function entrySnapshot(outDir: string, subpath: string, dtsFile: string, packageName?: string): EntrySnapshot;
export declare function anyCounts(outDir: string): AnyCount[];
export declare function emitDeclarations(): string;
export declare function generateSurface(): { entries: Array<EntrySnapshot & { subpath: string; file: string }>; anys: AnyCount[] };
