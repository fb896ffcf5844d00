import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { providerUrls, providerVariables, readProviderSettings } from "./provider-settings.js";

describe("the agent CLIs' own provider settings", () => {
  let home: string;
  let project: string;
  beforeEach(async () => {
    home = await realpath(await mkdtemp(join(tmpdir(), "closer-provider-home-")));
    project = join(home, "project");
    await mkdir(join(home, ".codex"), { recursive: true });
    await mkdir(join(home, ".config/opencode"), { recursive: true });
    await mkdir(project);
  });
  afterEach(() => rm(home, { recursive: true, force: true }));

  const codexToml = (text: string) => writeFile(join(home, ".codex/config.toml"), text);

  it("codex: the provider config.toml selects (through its profile), its base_url and env_key", async () => {
    await codexToml(
      [
        'profile = "work"',
        'model_provider = "other"',
        "[profiles.work]",
        'model_provider = "gateway"',
        "[model_providers.gateway]",
        'base_url = "https://llm.example.com:8443/v1"',
        'env_key = "GATEWAY_KEY"',
      ].join("\n"),
    );
    const settings = await readProviderSettings(["codex"], {
      env: { GATEWAY_KEY: "k" },
      home,
      project,
    });
    expect(settings.problems).toEqual([]);
    expect(providerVariables(settings, "codex")).toEqual(["GATEWAY_KEY"]);
    expect(providerVariables(settings, "opencode")).toEqual([]);
    expect(providerUrls(settings)).toEqual(["https://llm.example.com:8443/v1"]);
  });

  it("codex: a missing key variable, an undefined provider and a file that does not parse are named with file, field and fix", async () => {
    const file = join(home, ".codex/config.toml");
    await codexToml('model_provider = "gw"\n[model_providers.gw]\nenv_key = "GW_KEY"\n');
    const missing = await readProviderSettings(["codex"], { env: {}, home, project });
    expect(missing.problems).toEqual([
      expect.objectContaining({
        file,
        field: "model_providers.gw.env_key",
        fix: expect.stringContaining("set GW_KEY"),
      }),
    ]);
    await codexToml('model_provider = "nowhere"\n');
    const undefinedProvider = await readProviderSettings(["codex"], { env: {}, home, project });
    expect(undefinedProvider.problems).toEqual([
      expect.objectContaining({
        file,
        field: "model_provider",
        fix: expect.stringContaining("[model_providers.nowhere]"),
      }),
    ]);
    await codexToml("model_provider = = 3\n");
    const broken = await readProviderSettings(["codex"], { env: {}, home, project });
    expect(broken.problems).toEqual([expect.objectContaining({ file, field: "" })]);
    // The built-in provider, or no file at all: nothing to read.
    await codexToml('model = "gpt-5"\n');
    expect(await readProviderSettings(["codex"], { env: {}, home, project })).toEqual({
      endpoints: [],
      problems: [],
    });
  });

  it("opencode: the project's file over the global one; {env:NAME} keys and the env list are passed; a stored login needs no variable", async () => {
    await writeFile(
      join(home, ".config/opencode/opencode.json"),
      JSON.stringify({
        provider: {
          local: { options: { baseURL: "http://old.example:1/v1", apiKey: "{env:OLD_KEY}" } },
          hosted: { env: ["HOSTED_KEY"], options: { baseURL: "https://hosted.example/v1" } },
          saved: { env: ["SAVED_KEY"] },
        },
      }),
    );
    await writeFile(
      join(project, "opencode.jsonc"),
      '{ // the project\'s own\n "provider": { "local": { "options": { "baseURL": "http://127.0.0.1:9000/v1", "apiKey": "{env:LOCAL_KEY}" } } }, }',
    );
    await mkdir(join(home, ".local/share/opencode"), { recursive: true });
    await writeFile(join(home, ".local/share/opencode/auth.json"), '{"saved":{"type":"api"}}');
    const settings = await readProviderSettings(["opencode"], { env: {}, home, project });

    expect(providerVariables(settings, "opencode").sort()).toEqual([
      "HOSTED_KEY",
      "LOCAL_KEY",
      "SAVED_KEY",
    ]);
    expect(providerUrls(settings)).toEqual([
      "http://127.0.0.1:9000/v1",
      "https://hosted.example/v1",
    ]);
    expect(settings.problems.map((problem) => [problem.field, problem.file])).toEqual([
      ["provider.local.options.apiKey", join(project, "opencode.jsonc")],
      ["provider.hosted.env", join(home, ".config/opencode/opencode.json")],
    ]);
  });
});
