/**
 * Runs closer's command bundle (one CommonJS file) from a V8 code cache
 * (docs/cli.md#code-cache). Compiling the bundle is most of what a command
 * costs before it does anything; a process that finds the bytecode an
 * earlier run of the same command left starts from it instead. Node 20 has
 * no compile cache of its own for this; `node:vm` takes V8's cached data.
 *
 * The cache sits beside the bundle: whoever can write it can write the
 * bundle too, so it is trusted as much as the code it stands for.
 */
import { isAscii } from "node:buffer";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import vm from "node:vm";

/**
 * The parameters CommonJS code is run with, as Node wraps a module, and an
 * `import()`: code run through `node:vm` has none of its own on Node 20, so
 * the bundle's (src/import-module.ts) is this module's.
 */
type ModuleFunction = (
  ...parameters: [
    exports: unknown,
    require: NodeJS.Require,
    module: { exports: unknown },
    filename: string,
    dirname: string,
    importModule: (specifier: string) => Promise<unknown>,
  ]
) => void;

export interface CodeCacheOptions {
  /** Names this build of the bundle: a cache of another build is never read. */
  readonly bundleId: string;
  /** The command being run: each command keeps the bytecode of the code it ran. */
  readonly command: string;
  /** Where caches are kept; default: `code-cache/` beside the bundle. */
  readonly cacheDir?: string;
  /** The environment; `NODE_DISABLE_COMPILE_CACHE` set turns the cache off. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** What became of the cache for this process (for tests and diagnostics). */
export type CacheUse = "used" | "written" | "rejected" | "off";

/**
 * Loads and runs the bundle at `bundlePath`. A cache V8 accepts is used; a
 * missing one, or one V8 rejects (another Node, a damaged file), is written
 * anew when the process exits, with everything the command compiled by then.
 * A cache that cannot be read or written costs nothing but the speed.
 */
export function runBundleWithCodeCache(bundlePath: string, options: CodeCacheOptions): CacheUse {
  const env = options.env ?? process.env;
  const off = Boolean(env.NODE_DISABLE_COMPILE_CACHE);
  const cacheFile = off ? undefined : cacheFileOf(bundlePath, options);
  const cachedData = cacheFile === undefined ? undefined : readIfPresent(cacheFile);
  const script = new vm.Script(wrapAsModule(readSource(bundlePath)), {
    filename: bundlePath,
    ...(cachedData === undefined ? {} : { cachedData }),
  });
  const use: CacheUse =
    cacheFile === undefined
      ? "off"
      : cachedData === undefined
        ? "written"
        : script.cachedDataRejected
          ? "rejected"
          : "used";
  if (cacheFile !== undefined && use !== "used") {
    process.once("exit", () => writeAtomically(cacheFile, script.createCachedData()));
  }
  const moduleFunction = script.runInThisContext() as ModuleFunction;
  const module = { exports: {} };
  moduleFunction.call(
    module.exports,
    module.exports,
    createRequire(bundlePath),
    module,
    bundlePath,
    path.dirname(bundlePath),
    (specifier) => import(specifier),
  );
  return use;
}

/** `<dir>/<bundle id>-<V8 version>-<arch>-<command>.bin`: one file per build, engine and command. */
function cacheFileOf(bundlePath: string, options: CodeCacheOptions): string {
  const dir = options.cacheDir ?? path.join(path.dirname(bundlePath), "code-cache");
  const parts = [options.bundleId, process.versions.v8, process.arch, options.command];
  return path.join(dir, `${parts.map(fileNamePart).join("-")}.bin`);
}

function fileNamePart(text: string): string {
  return text.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 64) || "_";
}

/**
 * The bundle's text. The build writes it in ASCII, which is read as Latin-1:
 * a copy of the bytes, where decoding UTF-8 would cost a few milliseconds
 * of every command.
 */
function readSource(file: string): string {
  const bytes = readFileSync(file);
  return bytes.toString(isAscii(bytes) ? "latin1" : "utf8");
}

/**
 * The bundle as the body of a function of CommonJS's parameters. A leading
 * `#!` line becomes a comment of the same length, so positions in stack
 * traces stay those of the file.
 */
function wrapAsModule(source: string): string {
  const body = source.startsWith("#!") ? `//${source.slice(2)}` : source;
  return `(function (exports, require, module, __filename, __dirname, __closerImportModule) {${body}\n})`;
}

function readIfPresent(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * A temp file renamed into place: a process reading the cache never sees part
 * of one. Nothing here may fail the command, which has already finished.
 */
function writeAtomically(file: string, data: Buffer): void {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(temporary, data);
    renameSync(temporary, file);
  } catch {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // The folder itself could not be made: there is no temp file to remove.
    }
  }
}

/** The word a cache is kept under: the command (`run`, `validate`), or `closer` for none. */
export function commandOf(args: readonly string[]): string {
  const first = args[0];
  return first !== undefined && /^[a-z][a-z-]{0,31}$/.test(first) ? first : "closer";
}
