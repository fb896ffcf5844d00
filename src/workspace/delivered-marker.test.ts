import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  commit,
  git,
  makeUpstreamClone,
  type UpstreamClone,
} from "../../test/support/upstream-clone.js";
import { deliverBranch, deliverToBase, readRemoteBranch } from "./deliver-commit.js";
import { deliveredRef, readDeliveredMarker } from "./delivered-marker.js";
import { pushExactCommit } from "./git-push.js";

let repos: UpstreamClone;
let upstream: string;
let clone: string;

beforeEach(async () => {
  repos = await makeUpstreamClone("closer-marker-");
  ({ upstream, clone } = repos);
});
afterEach(() => repos.cleanup());

describe("docs/queue.md#exactly-once: a delivered run's marker ref on origin", () => {
  it("is absent until the base push, then names the delivered commit, pushed with it", async () => {
    const fix = await commit(clone, "fix.txt");
    expect(await readDeliveredMarker(clone, "run-a")).toBeUndefined();
    expect(await deliverToBase(clone, { commit: fix, base: "main", runId: "run-a" })).toBe(
      "pushed",
    );
    expect(await readDeliveredMarker(clone, "run-a")).toBe(fix);
    expect(await git(upstream, "rev-parse", deliveredRef("run-a"))).toBe(fix);
    expect(await readRemoteBranch(clone, "main")).toBe(fix);
    // Another run's marker is its own; a run id that is a prefix of another finds nothing.
    expect(await readDeliveredMarker(clone, "run")).toBeUndefined();
    expect(await readDeliveredMarker(clone, "run-b")).toBeUndefined();
  });

  it("is set with the task branch too", async () => {
    await git(clone, "checkout", "--quiet", "-b", "closer/issue-3");
    const fix = await commit(clone, "fix.txt");
    const target = { commit: fix, branch: "closer/issue-3", runId: "run-c" };
    expect(await deliverBranch(clone, target)).toBe("pushed");
    expect(await readDeliveredMarker(clone, "run-c")).toBe(fix);
  });

  it("moves with the commit or not at all: a base push refused as not fast-forward leaves no marker", async () => {
    const start = await git(clone, "rev-parse", "HEAD");
    await commit(clone, "other.txt");
    await git(clone, "push", "--quiet", "origin", "main");
    await git(clone, "checkout", "--quiet", "-b", "closer/issue-1", start);
    const fix = await commit(clone, "fix.txt");
    const push = { commit: fix, branch: "main", marker: deliveredRef("run-d") };
    await expect(pushExactCommit(clone, push)).rejects.toThrow();
    expect(await readDeliveredMarker(clone, "run-d")).toBeUndefined();
  });

  it("a run without a marker on origin reads as not delivered; a missing remote is an error", async () => {
    expect(await readDeliveredMarker(clone, "20300101-120000-ab12cd")).toBeUndefined();
    await expect(readDeliveredMarker(clone, "r", "nowhere")).rejects.toThrow();
  });
});
