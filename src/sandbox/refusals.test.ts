import { mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isRefusal } from "./refusals.js";

describe("a write the sandbox reported", () => {
  let tree: string;
  let outside: string;
  beforeEach(async () => {
    tree = await realpath(await mkdtemp(join(tmpdir(), "closer-tree-")));
    outside = await realpath(await mkdtemp(join(tmpdir(), "closer-outside-")));
  });
  afterEach(async () => {
    await rm(tree, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  const rules = () => ({
    allowWrite: [tree],
    denyWrite: [join(tree, ".git/config")],
    ignoredPaths: [join(outside, "cache")],
    ignoredHosts: ["telemetry.example.com"],
  });

  it("is refused outside every writable place or inside a read-only one", () => {
    expect(isRefusal(`deny openat ${join(tree, "work.txt")}`, rules())).toBe(false);
    expect(isRefusal(`deny openat ${join(outside, "x")}`, rules())).toBe(true);
    expect(isRefusal(`deny openat ${join(tree, ".git/config")}`, rules())).toBe(true);
    expect(isRefusal("deny network-outbound 127.0.0.1:9", rules())).toBe(true);
  });

  it("does not count git freshening a packed object by its pack's times; any other write to a pack does", () => {
    const pack = join(tree, ".git/objects/pack/pack-0123.pack");
    const held = { ...rules(), denyWrite: [...rules().denyWrite, join(tree, ".git/objects/pack")] };
    expect(isRefusal(`deny utimensat ${pack}`, held)).toBe(false);
    expect(isRefusal(`deny openat ${pack}`, held)).toBe(true);
    expect(isRefusal(`deny utimensat ${join(tree, ".git/config")}`, held)).toBe(true);
  });

  it("does not count in an ignored place or to an ignored host, nor for mkdir of a folder that is there", () => {
    expect(isRefusal(`deny openat ${join(outside, "cache/x")}`, rules())).toBe(false);
    expect(isRefusal("deny network-outbound telemetry.example.com:443 (host)", rules())).toBe(
      false,
    );
    expect(isRefusal("deny network-outbound example.com:443 (host)", rules())).toBe(true);
    expect(isRefusal(`deny mkdir ${outside}`, rules())).toBe(false);
    expect(isRefusal(`deny mkdir ${join(outside, "new")}`, rules())).toBe(true);
    // The folders an ignored place needs first: `mkdir -p` of outside/cache makes outside too.
    expect(
      isRefusal(`deny mkdir ${join(outside, "missing")}`, {
        ...rules(),
        ignoredPaths: [join(outside, "missing/cache")],
      }),
    ).toBe(false);
    expect(
      isRefusal(`deny openat ${join(outside, "missing")}`, {
        ...rules(),
        ignoredPaths: [join(outside, "missing/cache")],
      }),
    ).toBe(true);
  });

  it("is judged where it lands: through a symlink in the tree to outside it, refused; making the link, not", async () => {
    await writeFile(join(outside, "kept.txt"), "the user's\n");
    await symlink(join(outside, "kept.txt"), join(tree, "link"));
    await symlink(outside, join(tree, "folder-link"));
    expect(isRefusal(`deny openat ${join(tree, "link")}`, rules())).toBe(true);
    expect(isRefusal(`deny openat ${join(tree, "folder-link/new.txt")}`, rules())).toBe(true);
    expect(isRefusal(`deny symlinkat ${join(tree, "link")}`, rules())).toBe(false);
    expect(isRefusal(`deny unlinkat ${join(tree, "link")}`, rules())).toBe(false);
  });
});
