import type { Queue } from "bullmq";
import { importModule } from "../import-module.js";
import { assertPackagesInstalled, QUEUE_PACKAGES } from "../optional-packages.js";
import type { Environment } from "../run/index.js";
import { QUEUE_NAME, type QueueJobData } from "./job-data.js";
import {
  assertRedisReachable,
  parseRedisUrl,
  type RedisConnection,
  redisUrlOf,
} from "./redis-connection.js";

/**
 * The Redis connection of `--redis` or CLOSER_REDIS_URL, checked to answer;
 * first, BullMQ checked installed (docs/cli.md#install), the queue commands' first step.
 */
export async function reachableRedis(
  flag: string | undefined,
  env: Environment,
): Promise<RedisConnection> {
  assertPackagesInstalled(QUEUE_PACKAGES);
  const connection = parseRedisUrl(redisUrlOf(flag, env));
  await assertRedisReachable(connection);
  return connection;
}

/** closer's queue on that Redis; the caller closes it. */
export async function openQueue(connection: RedisConnection): Promise<Queue<QueueJobData>> {
  const { Queue } = await importModule<typeof import("bullmq")>("bullmq");
  return new Queue<QueueJobData>(QUEUE_NAME, { connection: { ...connection } });
}
