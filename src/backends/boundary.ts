/**
 * The GitHub boundary of docs/worktrees-and-github.md#github-boundary: the model never performs GitHub side
 * effects itself (closing, editing, merging, raw API calls); closer does them
 * once, after verified completion. Pure predicates over a tool call, shared
 * by every backend that can veto a tool use.
 */

/** What the model is told when a tool use crosses the boundary. */
export const BOUNDARY_MESSAGE =
  "closer performs GitHub side effects after verification: do not close, edit or merge issues " +
  "or pull requests and do not call the GitHub API yourself. Finish the work and declare " +
  "completion; closer will update GitHub once the checks pass.";

const DEFAULT_GITHUB_API_HOST = "api.github.com";

/** `gh` subcommands with side effects closer keeps for itself. */
const FORBIDDEN_GH_COMMANDS: readonly (readonly string[])[] = [
  ["issue", "close"],
  ["issue", "edit"],
  ["pr", "merge"],
  ["api"],
];

const HTTP_CLIENTS = new Set(["curl", "wget"]);
const WRAPPERS = new Set(["sudo", "env", "command", "exec", "nohup", "time", "xargs"]);
const SHELLS = new Set(["sh", "bash", "zsh", "dash"]);

/** Splits a command line into simple commands, each a list of words with quotes removed. */
function splitCommands(command: string): string[][] {
  const commands: string[][] = [];
  let words: string[] = [];
  let word = "";
  let quote: string | undefined;
  const endWord = () => {
    if (word !== "") words.push(word);
    word = "";
  };
  const endCommand = () => {
    endWord();
    if (words.length > 0) commands.push(words);
    words = [];
  };
  for (let index = 0; index < command.length; index++) {
    const character = command[index] ?? "";
    if (quote !== undefined) {
      if (character === quote) quote = undefined;
      else if (character === "\\" && quote === '"') word += command[++index] ?? "";
      else word += character;
    } else if (character === "'" || character === '"') {
      quote = character;
    } else if (character === "\\") {
      word += command[++index] ?? "";
    } else if (/[;&|\n()`]/.test(character) || (character === "$" && command[index + 1] === "(")) {
      endCommand();
    } else if (/\s/.test(character)) {
      endWord();
    } else {
      word += character;
    }
  }
  endCommand();
  return commands;
}

function baseName(program: string): string {
  return program.slice(program.lastIndexOf("/") + 1);
}

/** Drops variable assignments and wrappers such as `sudo` or `env` in front of the program. */
function stripPrefix(words: readonly string[]): readonly string[] {
  let index = 0;
  while (index < words.length) {
    const word = words[index] ?? "";
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) index++;
    else if (WRAPPERS.has(baseName(word))) {
      index++;
      while ((words[index] ?? "").startsWith("-")) index++;
    } else break;
  }
  return words.slice(index);
}

function isForbiddenGh(args: readonly string[]): boolean {
  const subcommands = args.filter((arg) => !arg.startsWith("-"));
  return FORBIDDEN_GH_COMMANDS.some((forbidden) =>
    forbidden.every((part, position) => subcommands[position] === part),
  );
}

function apiHosts(githubApiUrl: string | undefined): string[] {
  const hosts = [DEFAULT_GITHUB_API_HOST];
  if (githubApiUrl) {
    try {
      const url = new URL(githubApiUrl);
      hosts.push(`${url.host}${url.pathname.replace(/\/+$/, "")}`.toLowerCase());
    } catch {
      hosts.push(githubApiUrl.toLowerCase());
    }
  }
  return hosts;
}

/** True when a URL (or a word holding one) points at the GitHub API. */
function isGithubApiUrl(text: string, githubApiUrl?: string): boolean {
  const lower = text.toLowerCase();
  if (/\$\{?github_api_url\b/.test(lower)) return true;
  const withoutScheme = lower.replace(/^[a-z]+:\/\//, "");
  return apiHosts(githubApiUrl).some(
    (host) =>
      withoutScheme === host || withoutScheme.startsWith(`${host}/`) || lower.includes(`//${host}`),
  );
}

function isForbiddenSimpleCommand(words: readonly string[], githubApiUrl?: string): boolean {
  const [program, ...args] = stripPrefix(words);
  if (program === undefined) return false;
  const name = baseName(program);
  if (name === "gh") return isForbiddenGh(args);
  if (HTTP_CLIENTS.has(name)) return args.some((arg) => isGithubApiUrl(arg, githubApiUrl));
  if (SHELLS.has(name)) {
    const script = args[args.indexOf("-c") + 1];
    return args.includes("-c") && script !== undefined && isForbiddenCommand(script, githubApiUrl);
  }
  return false;
}

/**
 * True when a shell command line would close or edit an issue, merge a pull
 * request, or call the GitHub API (`gh api`, curl/wget to api.github.com or
 * to `githubApiUrl`, the GitHub Enterprise API base).
 */
export function isForbiddenCommand(command: string, githubApiUrl?: string): boolean {
  return splitCommands(command).some((words) => isForbiddenSimpleCommand(words, githubApiUrl));
}

/**
 * The message to deny a tool use with, or undefined when it is allowed.
 * Looks at shell commands (`Bash`, `command`) and fetched URLs (`WebFetch`, `url`).
 */
export function boundaryDenial(
  toolName: string,
  input: unknown,
  githubApiUrl?: string,
): string | undefined {
  if (typeof input !== "object" || input === null) return undefined;
  const fields = input as Record<string, unknown>;
  const command = fields.command;
  if (typeof command === "string" && isForbiddenCommand(command, githubApiUrl)) {
    return BOUNDARY_MESSAGE;
  }
  const url = fields.url;
  if (toolName !== "Bash" && typeof url === "string" && isGithubApiUrl(url, githubApiUrl)) {
    return BOUNDARY_MESSAGE;
  }
  return undefined;
}
