/** What replaces a secret wherever the run record would have held it. */
const REDACTED = "[redacted]";

const SECRET_NAME = /TOKEN|KEY|SECRET|PASSWORD/i;
const ALWAYS_SECRET = new Set(["GITHUB_TOKEN", "ANTHROPIC_API_KEY"]);
// Shorter values ("1", "true", "us") are settings, not secrets; replacing them would garble the record.
const MIN_SECRET_LENGTH = 6;

/**
 * Tokens recognisable by their shape alone (GitHub, Anthropic — short keys
 * too —, OpenAI, AWS access key ids, Slack, JWTs): the agent can read one from
 * a file or a command's output, where no environment variable names it
 * (docs/record.md#secrets).
 */
const TOKEN_SHAPES =
  /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,}|sk-ant-[A-Za-z0-9_-]{4,}|sk-(?:proj-)?[A-Za-z0-9_-]{32,}|AKIA[0-9A-Z]{16}|xox[abprs]-[A-Za-z0-9-]{10,}|eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*)/;

/**
 * Secrets recognisable by what stands before them; the first group is kept:
 * `Bearer <token>`, an AWS secret access key after its name, a URL's password.
 */
const SECRETS_AFTER = [
  /(\bBearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi,
  /(\baws_?secret_?access_?key["']?\s*[=:]\s*["']?)[A-Za-z0-9/+=]{16,}/gi,
  /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/?#@:]*:)[^\s/?#@]+(?=@)/gi,
];

/** A PEM private-key block, or what is left of one when the text was cut before its end. */
const PRIVATE_KEY_BLOCK =
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g;

/** Replaces every known secret value in a text. */
export type Redactor = (text: string) => string;

/** The values of the environment variables that hold secrets, longest first. */
function findSecretValues(env: Readonly<Record<string, string | undefined>>): string[] {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value.trim().length < MIN_SECRET_LENGTH) continue;
    if (ALWAYS_SECRET.has(name) || SECRET_NAME.test(name)) values.add(value);
  }
  return [...values].sort((left, right) => right.length - left.length);
}

/**
 * Makes a redactor for the secrets of an environment: any value of a variable
 * named like *TOKEN*, *KEY*, *SECRET* or *PASSWORD* becomes `[redacted]`, and
 * so does any text shaped like a well-known API token, a `Bearer` token, an
 * AWS secret access key after its name, a private-key block, or a URL's
 * password (the scheme, user and host stay).
 */
export function makeRedactor(env: Readonly<Record<string, string | undefined>>): Redactor {
  const secrets = findSecretValues(env);
  const tokenShapes = new RegExp(TOKEN_SHAPES, "g");
  const redact = (text: string) => {
    let result = text;
    for (const secret of secrets) {
      if (result.includes(secret)) result = result.split(secret).join(REDACTED);
    }
    result = result.replace(PRIVATE_KEY_BLOCK, REDACTED);
    for (const shape of SECRETS_AFTER) result = result.replace(shape, `$1${REDACTED}`);
    return result.replace(tokenShapes, REDACTED);
  };
  // run.json repeats most of its strings every iteration: each is redacted once.
  const known = new Map<string, string>();
  return (text) => {
    const seen = known.get(text);
    if (seen !== undefined) return seen;
    const result = redact(text);
    if (text.length <= REMEMBERED_TEXT_CHARS) {
      if (known.size >= REMEMBERED_TEXTS) known.clear();
      known.set(text, result);
    }
    return result;
  };
}

/**
 * How many short texts a redactor remembers the redaction of, and how long each
 * may be: at most about 1 MB of memory.
 */
const REMEMBERED_TEXTS = 1024;
const REMEMBERED_TEXT_CHARS = 256;

/** JSON text of a value with every string redacted before it is escaped. */
export function stringifyRedacted(value: unknown, redact: Redactor, indent?: number): string {
  return JSON.stringify(
    value,
    (_key, item: unknown) => (typeof item === "string" ? redact(item) : item),
    indent,
  );
}
