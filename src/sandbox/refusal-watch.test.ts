import { describe, expect, it } from "vitest";
import { watchRefusedConnections } from "./refusal-watch.js";

const judge = {
  allowWrite: ["/work"],
  denyWrite: [],
  ignoredPaths: [],
  ignoredHosts: ["api.github.com"],
};

describe("watching refused connections", () => {
  it("a counted refused connection aborts, naming the host and the setting that allows it", () => {
    const watch = watchRefusedConnections("backend", judge);
    watch.see("deny network-outbound api.github.com:443 (host is not on the allow list)");
    watch.see("deny openat /etc/passwd");
    expect(watch.signal.aborted).toBe(false);
    watch.see("deny network-outbound llm.example.com:8443 (host is not on the allow list)");
    expect(watch.signal.aborted).toBe(true);
    expect(String(watch.signal.reason)).toContain("llm.example.com:8443");
    expect(String(watch.signal.reason)).toContain("runner.sandbox.allowedDomains");
  });

  it("for the validators, the setting is validatorDomains", () => {
    const watch = watchRefusedConnections("validators", judge);
    watch.see("deny network-outbound db.example:5432 (host is not on the allow list)");
    expect(String(watch.signal.reason)).toContain("runner.sandbox.validatorDomains");
  });
});
