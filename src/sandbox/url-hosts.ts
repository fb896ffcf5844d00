/**
 * The hosts a run's policy allows from URLs (docs/sandbox.md#policy): `host:port` of a model
 * API's base URL, and whether a host is this machine.
 */

/** The port a URL of each scheme reaches when it names none. */
const DEFAULT_PORTS: Readonly<Record<string, string>> = {
  "http:": "80",
  "https:": "443",
  "ws:": "80",
  "wss:": "443",
};

/**
 * `host:port` of a URL: its own port, or its scheme's default. An entry without a port would
 * let every port of the host through; a scheme without a known default allows nothing.
 */
export function urlHost(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  const port = url.port === "" ? DEFAULT_PORTS[url.protocol] : url.port;
  return url.hostname === "" || port === undefined ? undefined : `${url.hostname}:${port}`;
}

/** `host:port` of every `*_BASE_URL` / `*_API_BASE` in the backend's environment. */
export function baseUrlHosts(env: Readonly<Record<string, string>>): string[] {
  return Object.entries(env)
    .filter(([name]) => /_BASE_URL$|_API_BASE$/.test(name))
    .flatMap(([, value]) => urlHost(value) ?? []);
}

/** Whether a host pattern names this machine. */
export function isLoopbackHost(host: string): boolean {
  const name = host.replace(/:\d+$/, "").replace(/^\[|\]$/g, "");
  return name === "localhost" || name === "::1" || /^127\./.test(name);
}
