import { describeBackendContract } from "../../../test/backend-contract.js";
import { makeOpenaiContractHarness } from "../../../test/doubles/openai-server/contract-harness.js";

describeBackendContract("openai-compatible (json-schema)", () =>
  makeOpenaiContractHarness("json-schema"),
);
describeBackendContract("openai-compatible (answer tool)", () => makeOpenaiContractHarness("tool"));
