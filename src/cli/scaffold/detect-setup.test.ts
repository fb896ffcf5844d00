import { describe, expect, it } from "vitest";
import { detectSetup } from "./detect-setup.js";

const setupOf = (files: Record<string, string>) =>
  detectSetup(async (path) => files[path]).then((found) => found.map((f) => f.command));

describe("detectSetup", () => {
  it.each([
    [{ "package-lock.json": "{}" }, ["npm ci"]],
    [{ "pnpm-lock.yaml": "" }, ["pnpm install --frozen-lockfile"]],
    [{ "yarn.lock": "" }, ["yarn install --frozen-lockfile"]],
    [{ "yarn.lock": "", ".yarnrc.yml": "" }, ["yarn install --immutable"]],
    [{ "bun.lockb": "" }, ["bun install --frozen-lockfile"]],
    [{ "deno.lock": "{}" }, ["deno install --frozen"]],
    [{ "uv.lock": "" }, ["uv sync"]],
    [{ "poetry.lock": "" }, ["poetry install"]],
    [{ "requirements.txt": "pytest\n" }, []],
    [{ "go.mod": "module x\n" }, ["go mod download"]],
    [{ "Cargo.lock": "" }, ["cargo fetch"]],
    [{ "package-lock.json": "{}", "go.mod": "" }, ["npm ci", "go mod download"]],
    [{ Makefile: "setup:\n\tnpm ci\n", "package-lock.json": "{}" }, ["make setup"]],
    [{ Makefile: "install:\n\tcp x /usr/local/bin\n" }, []],
    [{ "package.json": '{"devDependencies":{"ava":"^3"}}' }, ["npm install --no-package-lock"]],
    [{ "package.json": '{"name":"bare"}' }, []],
    [{}, []],
  ])("%j → %j", async (files, commands) => {
    expect(await setupOf(files as Record<string, string>)).toEqual(commands);
  });
});
