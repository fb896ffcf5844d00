import { readFileSync } from "node:fs";

/** What closer's own package.json says of closer. */
export interface PackageInfo {
  readonly version: string;
  /** `engines.node`, e.g. `>=22.12`. */
  readonly nodeRange: string;
}

/** closer's package.json: two folders up from src/cli, dist/cli and dist/bin alike. */
export function readPackageInfo(): PackageInfo {
  const text = readFileSync(new URL("../../package.json", import.meta.url), "utf8");
  const json = JSON.parse(text) as { version: string; engines?: { node?: string } };
  return { version: json.version, nodeRange: json.engines?.node ?? ">=0" };
}
