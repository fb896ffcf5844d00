/**
 * The model call of the fake `codex` and `opencode`, made the way the real
 * CLIs make it: the endpoint and the key come from the CLI's own
 * configuration — codex: `$CODEX_HOME/config.toml` (else `~/.codex`), the
 * `model_provider` and its `[model_providers.<id>]` `base_url` and `env_key`;
 * opencode: `OPENCODE_CONFIG` or `./opencode.json`, the provider of
 * `--model`'s prefix (else the first), its `options.baseURL` and an
 * `options.apiKey` of the form `{env:NAME}` — and the request is
 * `POST <base>/chat/completions` with `Authorization: Bearer <key>`, through
 * `HTTP_PROXY` when one is set (as inside the OS sandbox).
 *
 * codex without its `env_key` variable stops as the real one does
 * ("Missing environment variable"); an HTTP error fails the call. A refused connection, or a 403 from the
 * proxy, is retried every 100 ms, as the real CLIs retry a failing endpoint,
 * until `retries` are spent (default: forever). The turn's `callModel`:
 * `true`, or `{ retries?, url? }` (`url` replaces the configured base URL).
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { parse } from "smol-toml";

export async function callModel(cli, spec, options) {
  const { retries = Number.POSITIVE_INFINITY, url } = spec === true ? {} : spec;
  const provider = cli === "codex" ? codexProvider() : opencodeProvider(options.model);
  const base = url ?? provider.baseUrl;
  if (provider.missing !== undefined) {
    return { failed: `Error: Missing environment variable: \`${provider.missing}\`.` };
  }
  let attempts = 0;
  for (;;) {
    attempts += 1;
    const answer = await post(`${base.replace(/\/+$/, "")}/chat/completions`, provider.key);
    const done = { ...answer, attempts, url: base };
    if (answer.status !== undefined && answer.status < 400) return done;
    if (answer.status !== undefined && answer.status !== 403) {
      return { ...done, failed: `Error: unexpected status ${answer.status}: ${answer.body}` };
    }
    if (attempts > retries) return { ...done, failed: `error sending request for url (${base})` };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function codexProvider() {
  const home = process.env.CODEX_HOME ?? path.join(os.homedir(), ".codex");
  const file = path.join(home, "config.toml");
  const config = fs.existsSync(file) ? parse(fs.readFileSync(file, "utf8")) : {};
  const id = config.model_provider ?? "openai";
  const provider = config.model_providers?.[id] ?? {};
  const name = provider.env_key;
  const key = name === undefined ? "" : process.env[name];
  return {
    baseUrl: provider.base_url ?? process.env.OPENAI_BASE_URL ?? "https://api.openai.com/v1",
    key: key ?? "",
    ...(name !== undefined && key === undefined ? { missing: name } : {}),
  };
}

function opencodeProvider(model) {
  const file = process.env.OPENCODE_CONFIG ?? path.resolve("opencode.json");
  const config = JSON.parse(fs.readFileSync(file, "utf8"));
  const providers = config.provider ?? {};
  const id = model?.split("/")[0] ?? Object.keys(providers)[0];
  const options = providers[id]?.options ?? {};
  const withEnv = (value) =>
    String(value ?? "").replace(/\{env:([^}]+)\}/g, (_, name) => process.env[name] ?? "");
  return { baseUrl: withEnv(options.baseURL), key: withEnv(options.apiKey) };
}

/** One request, straight or through the HTTP proxy of the environment; `{status, body}` or `{error}`. */
function post(target, key) {
  const proxy = process.env.HTTP_PROXY ?? process.env.http_proxy;
  const url = new URL(target);
  const through = proxy === undefined ? url : new URL(proxy);
  const body = JSON.stringify({ model: "fake", messages: [{ role: "user", content: "hi" }] });
  return new Promise((resolve) => {
    const request = http.request(
      {
        host: through.hostname,
        port: through.port || 80,
        method: "POST",
        path: proxy === undefined ? `${url.pathname}${url.search}` : url.href,
        headers: {
          host: url.host,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          authorization: `Bearer ${key}`,
          ...proxyAuthorization(proxy),
        },
      },
      (response) => {
        let text = "";
        response.on("data", (chunk) => {
          text += chunk;
        });
        response.on("end", () => resolve({ status: response.statusCode, body: text }));
      },
    );
    request.on("error", (error) => resolve({ error: String(error) }));
    request.end(body);
  });
}

/** The proxy URL's user and password, sent as HTTP clients send them (the sandbox's proxy reads its id there). */
function proxyAuthorization(proxy) {
  if (proxy === undefined) return {};
  const { username, password } = new URL(proxy);
  if (username === "") return {};
  const pair = `${decodeURIComponent(username)}:${decodeURIComponent(password)}`;
  return { "proxy-authorization": `Basic ${Buffer.from(pair).toString("base64")}` };
}
