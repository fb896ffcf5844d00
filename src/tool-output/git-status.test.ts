import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type GitStatusEntry,
  parseChangedFiles,
  parseGitStatus,
  parseUntrackedFiles,
} from "./git-status.js";

describe("parseChangedFiles / parseUntrackedFiles on a real repository", () => {
  let repo: string;
  const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, encoding: "utf8" });

  beforeAll(async () => {
    repo = await mkdtemp(join(tmpdir(), "closer-git-status-"));
    git("init", "-q");
    git("config", "user.email", "closer@example.com");
    git("config", "user.name", "closer");
    await writeFile(join(repo, "old name.txt"), "1\n");
    await writeFile(join(repo, "plain.txt"), "x\n");
    await writeFile(join(repo, "ü.txt"), "y\n");
    await writeFile(join(repo, "deleted.txt"), "z\n");
    git("add", ".");
    git("commit", "-qm", "start");
    git("mv", "old name.txt", "new name.txt");
    await writeFile(join(repo, "plain.txt"), "x\nchanged\n");
    git("rm", "-q", "--cached", "ü.txt");
    git("rm", "-q", "deleted.txt");
    await writeFile(join(repo, 'we"ird\\name.txt'), "q\n");
    await writeFile(join(repo, "tab\tname.txt"), "t\n");
    await mkdir(join(repo, "dir a"));
    await writeFile(join(repo, "dir a", "inner.txt"), "i\n");
  });
  afterAll(async () => {
    await rm(repo, { recursive: true, force: true });
  });

  it("lists tracked changes, renames by their new name, and untracked files apart", () => {
    const porcelain = git("status", "--porcelain", "--untracked-files=all");
    expect(parseChangedFiles(porcelain).sort()).toEqual(
      ["deleted.txt", "new name.txt", "plain.txt", "ü.txt"].sort(),
    );
    expect(parseUntrackedFiles(porcelain).sort()).toEqual(
      ["dir a/inner.txt", "tab\tname.txt", 'we"ird\\name.txt', "ü.txt"].sort(),
    );
    const rename = parseGitStatus(porcelain).find((entry) => entry.status.startsWith("R"));
    expect(rename).toEqual({ status: "R ", path: "new name.txt", originalPath: "old name.txt" });
  });

  it("reads the same paths with core.quotePath off", () => {
    const quoted = git("status", "--porcelain", "--untracked-files=all");
    const raw = git("-c", "core.quotePath=false", "status", "--porcelain", "--untracked-files=all");
    expect(raw).not.toBe(quoted);
    expect(parseGitStatus(raw)).toEqual(parseGitStatus(quoted));
  });

  it("finds nothing in a clean tree", () => {
    expect(parseChangedFiles("")).toEqual([]);
    expect(parseUntrackedFiles("\n")).toEqual([]);
  });

  it("skips the branch header and ignored files", () => {
    const text = "## main...origin/main\n!! build/\n M a.txt\n?? b.txt\n";
    expect(parseChangedFiles(text)).toEqual(["a.txt"]);
    expect(parseUntrackedFiles(text)).toEqual(["b.txt"]);
  });
});

/** Quotes a path the way git does in porcelain output; `quotePath` is git's core.quotePath. */
function quoteLikeGit(path: string, quotePath = true): string {
  const escapes: Record<number, string> = {
    7: "a",
    8: "b",
    9: "t",
    10: "n",
    11: "v",
    12: "f",
    13: "r",
  };
  const bytes = Buffer.from(path, "utf8");
  const needsQuotes = [...bytes].some(
    (byte) =>
      byte < 0x21 || byte === 0x22 || byte === 0x5c || byte === 0x7f || (quotePath && byte >= 0x80),
  );
  if (!needsQuotes) return path;
  if (!quotePath) {
    const escaped = [...path].map((char) => {
      const code = char.codePointAt(0) as number;
      if (char === '"' || char === "\\") return `\\${char}`;
      if (escapes[code]) return `\\${escapes[code]}`;
      if (code < 0x20 || code === 0x7f) return `\\${code.toString(8).padStart(3, "0")}`;
      return char;
    });
    return `"${escaped.join("")}"`;
  }
  let quoted = "";
  for (const byte of bytes) {
    if (byte === 0x22 || byte === 0x5c) quoted += `\\${String.fromCharCode(byte)}`;
    else if (escapes[byte]) quoted += `\\${escapes[byte]}`;
    else if (byte < 0x20 || byte >= 0x7f) quoted += `\\${byte.toString(8).padStart(3, "0")}`;
    else quoted += String.fromCharCode(byte);
  }
  return `"${quoted}"`;
}

describe("parseGitStatus on generated porcelain lines", () => {
  const path = fc
    .string({ unit: "binary", minLength: 1, maxLength: 30 })
    .filter((text) => !text.includes("\0") && Buffer.from(text, "utf8").toString("utf8") === text);
  const letter = fc.constantFrom(" ", "M", "T", "A", "D", "U");
  const plain = fc.record({
    status: fc.oneof(
      fc.tuple(letter, letter).map(([x, y]) => x + y),
      fc.constant("??"),
    ),
    path,
  });
  const renamed = fc.record({
    status: fc.constantFrom("R ", "C ", "RM", " R"),
    path,
    originalPath: path,
  });
  const entry: fc.Arbitrary<GitStatusEntry> = fc
    .oneof(plain, renamed)
    .filter((generated) => generated.status !== "  ");

  it("round-trips every entry, with core.quotePath on and off", () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 20 }), fc.boolean(), (entries, quotePath) => {
        const quote = (path: string) => quoteLikeGit(path, quotePath);
        const text = entries
          .map((generated) => {
            const from =
              generated.originalPath === undefined ? "" : `${quote(generated.originalPath)} -> `;
            return `${generated.status} ${from}${quote(generated.path)}`;
          })
          .join("\n");
        expect(parseGitStatus(`${text}\n`)).toEqual(entries);
        expect(parseUntrackedFiles(text)).toEqual(
          entries
            .filter((generated) => generated.status === "??")
            .map((generated) => generated.path),
        );
        expect(parseChangedFiles(text)).toEqual(
          entries
            .filter((generated) => generated.status !== "??")
            .map((generated) => generated.path),
        );
      }),
      { numRuns: 300 },
    );
  });

  it("never throws on arbitrary text", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        expect(Array.isArray(parseGitStatus(text))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
