import { NO_FINDINGS, type ProjectFindings, type ReadProjectFile } from "./project-check.js";

/** go.mod: the module's tests (`-v`, which names each test: plain `go test` counts none) and `go vet`, over every package. */
export async function detectGo(read: ReadProjectFile): Promise<ProjectFindings> {
  if ((await read("go.mod")) === undefined) return NO_FINDINGS;
  return {
    found: ["go.mod"],
    checks: [
      { role: "test", command: "go test -v ./...", source: "go.mod", parser: "parseTestOutput" },
      { role: "lint", command: "go vet ./...", source: "go.mod" },
    ],
    skipped: [],
  };
}

/** Cargo.toml: `cargo test`; clippy is a rustup component that not every toolchain has. */
export async function detectCargo(read: ReadProjectFile): Promise<ProjectFindings> {
  if ((await read("Cargo.toml")) === undefined) return NO_FINDINGS;
  return {
    found: ["Cargo.toml"],
    checks: [
      { role: "test", command: "cargo test", source: "Cargo.toml", parser: "parseTestOutput" },
    ],
    skipped: [
      {
        what: "cargo clippy",
        why: "not every Rust toolchain has it; add it to steps_registry.json by hand to use it",
      },
    ],
  };
}

/** deno.json or deno.jsonc: deno's own test runner, type checker and linter. */
export async function detectDeno(read: ReadProjectFile): Promise<ProjectFindings> {
  const config = (await read("deno.json")) !== undefined ? "deno.json" : "deno.jsonc";
  if ((await read(config)) === undefined) return NO_FINDINGS;
  return {
    found: [config],
    checks: [
      { role: "test", command: "deno test", source: config, parser: "parseTestOutput" },
      { role: "typecheck", command: "deno check", source: config, parser: "parseTypeErrors" },
      { role: "lint", command: "deno lint", source: config },
    ],
    skipped: [],
  };
}

/** The makefiles GNU make reads, in its order. */
const MAKEFILES = ["GNUmakefile", "makefile", "Makefile"] as const;

/** A rule line whose targets include `test` (`test:`, `check test::`); not `test := …`. */
const TEST_TARGET = /^(?:[^\s:#=]+[ \t]+)*test(?:[ \t]+[^\s:#=]+)*[ \t]*::?(?!=)/m;

/** A makefile with a `test` target: `make test`. */
export async function detectMakefile(read: ReadProjectFile): Promise<ProjectFindings> {
  for (const name of MAKEFILES) {
    const text = await read(name);
    if (text === undefined) continue;
    if (!TEST_TARGET.test(text)) {
      return { found: [name], checks: [], skipped: [{ what: name, why: "it has no test target" }] };
    }
    const source = `${name} target test`;
    return {
      found: [name],
      checks: [{ role: "test", command: "make test", source, parser: "parseTestOutput" }],
      skipped: [],
    };
  }
  return NO_FINDINGS;
}
