import { describe, expect, it } from "vitest";
import type { Launch } from "../ports/process.js";
import { type EntryLaunchOptions, enteredEnvironment, enteredLaunch } from "./entered-launch.js";
import type { HeldSandbox } from "./held-sandbox.js";

const HOLDER_KEY = "YWJj+/==";
const ENTRY_KEY = "ZGVm/+==";

function held(overrides: Partial<HeldSandbox> = {}): HeldSandbox {
  return {
    namespaces: {
      user: "/proc/7/fd/21",
      mnt: "/proc/7/fd/22",
      net: "/proc/7/fd/23",
      pid: "/proc/7/fd/24",
    },
    applySeccomp: "/lib/srt/apply-seccomp",
    env: {
      SRT_ENCODED_CMD: HOLDER_KEY,
      HTTP_PROXY: `http://${encodeURIComponent(HOLDER_KEY)}@localhost:3128`,
      SRT_OBSERVE_SOCK: "/tmp/srt/observe.sock",
    },
    unset: ["GITHUB_TOKEN", "GH_TOKEN"],
    attributionKey: HOLDER_KEY,
    keepsSetfcap: false,
    alive: () => true,
    tools: {
      nsenter: "/t/nsenter",
      unshare: "/t/unshare",
      setpriv: "/t/setpriv",
    },
    end: async () => {},
    ...overrides,
  };
}

function options(overrides: Partial<EntryLaunchOptions> = {}): EntryLaunchOptions {
  return {
    held: held(),
    join: { throughParent: false, uid: 1000, gid: 1001 },
    attributionKey: ENTRY_KEY,
    tmpDir: "/run/closer/tmp",
    clearNoProxy: false,
    cwd: "/repo",
    ...overrides,
  };
}

const launch: Launch = { file: "/bin/bash", args: ["-c", "make test"], env: {}, cwd: "/repo/sub" };

describe("enteredLaunch", () => {
  it("joins the holder's namespaces by closer's handles of them, then gives the program a process namespace of its own", () => {
    const entered = enteredLaunch(launch, options());
    expect(entered.file).toBe("/t/nsenter");
    expect(entered.args).toEqual([
      "--user=/proc/7/fd/21",
      "--mount=/proc/7/fd/22",
      "--net=/proc/7/fd/23",
      "--pid=/proc/7/fd/24",
      "--preserve-credentials",
      "--",
      "/t/unshare",
      "--wd=/repo/sub",
      "--pid",
      "--fork",
      "--kill-child",
      "--mount",
      "--mount-proc",
      "--",
      "/t/setpriv",
      "--no-new-privs",
      "--inh-caps=-all",
      "--bounding-set=-all",
      "--",
      "/lib/srt/apply-seccomp",
      "/bin/bash",
      "-c",
      "make test",
    ]);
  });

  it("goes through the parent user namespace and maps the user back only when told to", () => {
    const join = { throughParent: true, uid: 1000, gid: 1001 };
    const { args } = enteredLaunch(launch, options({ join }));
    const nsenterArgs = args.slice(0, args.indexOf("--"));
    expect(nsenterArgs).toEqual([
      "--user=/proc/7/fd/21",
      "--user-parent",
      "--mount=/proc/7/fd/22",
      "--net=/proc/7/fd/23",
      "--pid=/proc/7/fd/24",
      "--preserve-credentials",
    ]);
    const mapping = args.indexOf("--map-user=1000");
    expect(args.slice(mapping - 2, mapping + 3)).toEqual([
      "/t/unshare",
      "--user",
      "--map-user=1000",
      "--map-group=1001",
      "--",
    ]);
    expect(mapping).toBeLessThan(args.indexOf("/t/setpriv"));
    expect(mapping).toBeGreaterThan(args.indexOf("--mount-proc"));

    const plain = enteredLaunch(launch, options()).args;
    expect(plain).not.toContain("--user-parent");
    expect(plain.filter((arg) => arg.startsWith("--map-"))).toEqual([]);
    expect(plain.filter((arg) => arg === "/t/unshare")).toHaveLength(1);
  });

  it("starts in the launch's folder, or the given one, chosen by unshare inside the sandbox", () => {
    const { args } = enteredLaunch(launch, options());
    const nsenterArgs = args.slice(0, args.indexOf("--"));
    expect(nsenterArgs.some((arg) => arg.startsWith("--wd"))).toBe(false);
    expect(args.filter((arg) => arg.startsWith("--wd"))).toEqual(["--wd=/repo/sub"]);
    expect(args.indexOf("--wd=/repo/sub")).toBe(args.indexOf("/t/unshare") + 1);

    const { cwd: _, ...noFolder } = launch;
    const defaulted = enteredLaunch(noFolder, options({ cwd: "/elsewhere" })).args;
    expect(defaulted.filter((arg) => arg.startsWith("--wd"))).toEqual(["--wd=/elsewhere"]);
  });

  it("keeps CAP_SETFCAP in the bounding set only when the library's processes keep it", () => {
    const kept = enteredLaunch(launch, options({ held: held({ keepsSetfcap: true }) })).args;
    expect(kept).toContain("--bounding-set=-all,+setfcap");
    expect(kept).toContain("--no-new-privs");
    expect(kept).toContain("--inh-caps=-all");
    const dropped = enteredLaunch(launch, options()).args;
    expect(dropped).toContain("--bounding-set=-all");
    expect(dropped.some((arg) => arg.includes("setfcap"))).toBe(false);
  });

  it("runs every step in order, the seccomp helper and the program with its arguments last", () => {
    const join = { throughParent: true, uid: 0, gid: 0 };
    const { args } = enteredLaunch(
      { file: "/usr/bin/env", args: ["--", "x", "-y"], env: {} },
      options({ join, held: held({ keepsSetfcap: true }) }),
    );
    expect(args).toEqual([
      "--user=/proc/7/fd/21",
      "--user-parent",
      "--mount=/proc/7/fd/22",
      "--net=/proc/7/fd/23",
      "--pid=/proc/7/fd/24",
      "--preserve-credentials",
      "--",
      "/t/unshare",
      "--wd=/repo",
      "--pid",
      "--fork",
      "--kill-child",
      "--mount",
      "--mount-proc",
      "--",
      "/t/unshare",
      "--user",
      "--map-user=0",
      "--map-group=0",
      "--",
      "/t/setpriv",
      "--no-new-privs",
      "--inh-caps=-all",
      "--bounding-set=-all,+setfcap",
      "--",
      "/lib/srt/apply-seccomp",
      "/usr/bin/env",
      "--",
      "x",
      "-y",
    ]);
  });

  it("gives the program the entry's environment", () => {
    const env = { FOO: "bar" };
    expect(enteredLaunch({ ...launch, env }, options()).env).toEqual(
      enteredEnvironment({ ...launch, env }, options()),
    );
  });
});

describe("enteredEnvironment", () => {
  it("removes a variable the library takes away even when the launch sets it", () => {
    const env = enteredEnvironment(
      { ...launch, env: { GITHUB_TOKEN: "secret", GH_TOKEN: "other", KEPT: "yes" } },
      options(),
    );
    expect(env).not.toHaveProperty("GITHUB_TOKEN");
    expect(env).not.toHaveProperty("GH_TOKEN");
    expect(env.KEPT).toBe("yes");
  });

  it("carries the entry's attribution key instead of the holder's, raw and URL-encoded", () => {
    const env = enteredEnvironment(launch, options());
    expect(env.SRT_ENCODED_CMD).toBe(ENTRY_KEY);
    expect(env.HTTP_PROXY).toBe(`http://${encodeURIComponent(ENTRY_KEY)}@localhost:3128`);
    expect(env.SRT_OBSERVE_SOCK).toBe("/tmp/srt/observe.sock");
    expect(JSON.stringify(env)).not.toContain(HOLDER_KEY);
    expect(JSON.stringify(env)).not.toContain(encodeURIComponent(HOLDER_KEY));
  });

  it("puts the library's variables over the launch's", () => {
    const env = enteredEnvironment({ ...launch, env: { HTTP_PROXY: "http://mine" } }, options());
    expect(env.HTTP_PROXY).toBe(`http://${encodeURIComponent(ENTRY_KEY)}@localhost:3128`);
  });

  it("clears NO_PROXY and no_proxy only for a kind allowed a loopback host", () => {
    const given = { ...launch, env: { NO_PROXY: "localhost", no_proxy: "127.0.0.1" } };
    const cleared = enteredEnvironment(given, options({ clearNoProxy: true }));
    expect(cleared).not.toHaveProperty("NO_PROXY");
    expect(cleared).not.toHaveProperty("no_proxy");
    const kept = enteredEnvironment(given, options());
    expect(kept.NO_PROXY).toBe("localhost");
    expect(kept.no_proxy).toBe("127.0.0.1");
  });

  it("sets the run's temp folder, zsh's under it, and a shell level of 1", () => {
    const env = enteredEnvironment(
      { ...launch, env: { TMPDIR: "/tmp", TMPPREFIX: "/tmp/zsh", SHLVL: "4" } },
      options(),
    );
    expect(env.TMPDIR).toBe("/run/closer/tmp");
    expect(env.TMPPREFIX).toBe("/run/closer/tmp/zsh");
    expect(env.SHLVL).toBe("1");
    expect(env.npm_config_update_notifier).toBe("false");
  });

  it("adds a default variable only where the launch sets none, whatever its case", () => {
    const defaults = { GOCACHE: "/d/go", npm_config_cache: "/d/npm", CARGO_HOME: "/d/cargo" };
    const env = enteredEnvironment(
      { ...launch, env: { GOCACHE: "/mine/go", NPM_CONFIG_CACHE: "/mine/npm" } },
      options({ defaults }),
    );
    expect(env.GOCACHE).toBe("/mine/go");
    expect(env.NPM_CONFIG_CACHE).toBe("/mine/npm");
    expect(env).not.toHaveProperty("npm_config_cache");
    expect(env.CARGO_HOME).toBe("/d/cargo");
  });

  it("drops the launch's undefined variables", () => {
    const env = enteredEnvironment({ ...launch, env: { GONE: undefined, HERE: "1" } }, options());
    expect(Object.keys(env)).not.toContain("GONE");
    expect(Object.values(env)).not.toContain(undefined);
    expect(env.HERE).toBe("1");
  });
});
