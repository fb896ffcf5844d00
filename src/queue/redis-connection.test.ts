import { describe, expect, it } from "vitest";
import { isCloserError } from "../errors.js";
import { parseRedisUrl, redisUrlOf, unreachableReason } from "./redis-connection.js";

describe("docs/queue.md#redis the Redis URL", () => {
  it("--redis wins over CLOSER_REDIS_URL, which is used without it", () => {
    expect(redisUrlOf("redis://a:1", { CLOSER_REDIS_URL: "redis://b:2" })).toBe("redis://a:1");
    expect(redisUrlOf(undefined, { CLOSER_REDIS_URL: " redis://b:2 " })).toBe("redis://b:2");
  });

  it("neither is a config_error that says how to start a Redis", () => {
    let caught: unknown;
    try {
      redisUrlOf(undefined, { CLOSER_REDIS_URL: "" });
    } catch (error) {
      caught = error;
    }
    expect(isCloserError(caught) && caught.code).toBe("config_error");
    expect(isCloserError(caught) && caught.describe()).toContain("docker run -p 6379:6379 redis");
  });

  it("reads host, port, user, password, database and TLS", () => {
    expect(parseRedisUrl("redis://127.0.0.1:6380")).toEqual({
      host: "127.0.0.1",
      port: 6380,
      maxRetriesPerRequest: null,
    });
    expect(parseRedisUrl("rediss://worker:s%40cret@queue.internal/3")).toEqual({
      host: "queue.internal",
      port: 6379,
      username: "worker",
      password: "s@cret",
      db: 3,
      tls: {},
      maxRetriesPerRequest: null,
    });
    expect(parseRedisUrl("redis://[::1]:7000").host).toBe("::1");
  });

  it.each(["http://127.0.0.1:6379", "127.0.0.1:6379", "redis://host/db"])(
    "%s is refused as a usage_error naming the form",
    (url) => {
      expect(() => parseRedisUrl(url)).toThrow(/not a Redis URL/);
    },
  );
});

describe("docs/queue.md#redis-restart a Redis that stopped answering", () => {
  it("a refused or reset socket and a closed connection are Redis out of reach; other errors are not", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:6379"), {
      code: "ECONNREFUSED",
    });
    expect(unreachableReason(refused)).toBe("ECONNREFUSED");
    expect(unreachableReason(Object.assign(new Error("read"), { code: "ECONNRESET" }))).toBe(
      "ECONNRESET",
    );
    expect(unreachableReason(new Error("Connection is closed."))).toBe("the connection closed");
    expect(unreachableReason(new Error("Missing lock for job 3. moveToFinished"))).toBeUndefined();
  });
});
