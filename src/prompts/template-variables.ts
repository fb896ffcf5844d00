import Handlebars from "handlebars";

/** A variable a template reads from the root variables object. */
export interface TemplateVariable {
  /** The top-level name, e.g. `task` for `{{task.title}}`. */
  readonly name: string;
  /** The whole dotted path as written, e.g. `task.title`. */
  readonly path: string;
  /** 1-based line in the template body. */
  readonly line: number;
}

/** What a template reads: root variables, plus helpers and partials closer does not provide. */
export interface TemplateUsage {
  readonly variables: readonly TemplateVariable[];
  readonly unknownHelpers: readonly string[];
  readonly partials: readonly string[];
}

/** Helpers Handlebars ships with; closer registers no others. */
const BUILTIN_HELPERS: readonly string[] = ["if", "unless", "each", "with", "lookup", "log"];
const CONTEXT_CHANGING_HELPERS = new Set(["each", "with"]);

type Frame = "root" | "item";

interface Scope {
  /** Context frames, innermost last; `../` walks outwards by one. */
  readonly frames: readonly Frame[];
  /** Block param names in scope (`as |item index|`). */
  readonly blockParams: ReadonlySet<string>;
}

interface Collector {
  readonly variables: TemplateVariable[];
  readonly unknownHelpers: Set<string>;
  readonly partials: Set<string>;
}

/**
 * Walks the Handlebars syntax tree of a template body (without front matter) and lists the root
 * variables it reads. Paths inside `#each`/`#with` blocks that refer to the current item, `this`,
 * `@index`-style data and block params are not root variables and are left out; `../x` and
 * `@root.x` are followed back to the root. Throws Handlebars' parse error on bad syntax.
 */
export function listTemplateVariables(body: string): TemplateUsage {
  const collector: Collector = { variables: [], unknownHelpers: new Set(), partials: new Set() };
  walkProgram(Handlebars.parse(body), { frames: ["root"], blockParams: new Set() }, collector);
  return {
    variables: collector.variables,
    unknownHelpers: [...collector.unknownHelpers],
    partials: [...collector.partials],
  };
}

function walkProgram(program: hbs.AST.Program, scope: Scope, collector: Collector): void {
  for (const statement of program.body) walkStatement(statement, scope, collector);
}

function walkStatement(statement: hbs.AST.Statement, scope: Scope, collector: Collector): void {
  switch (statement.type) {
    case "MustacheStatement": {
      const mustache = statement as hbs.AST.MustacheStatement;
      walkCall(mustache, scope, collector);
      return;
    }
    case "BlockStatement":
      walkBlock(statement as hbs.AST.BlockStatement, scope, collector);
      return;
    case "PartialStatement":
    case "PartialBlockStatement": {
      const partial = statement as hbs.AST.PartialStatement;
      collector.partials.add(expressionText(partial.name));
      return;
    }
    default:
      return;
  }
}

function walkBlock(block: hbs.AST.BlockStatement, scope: Scope, collector: Collector): void {
  const helper = helperName(block.path);
  const isHelperCall =
    hasArguments(block.params, block.hash) ||
    (helper !== undefined && BUILTIN_HELPERS.includes(helper));
  let changesContext = true;
  if (isHelperCall) {
    noteHelper(block.path, collector);
    walkArguments(block.params, block.hash, scope, collector);
    changesContext = helper !== undefined && CONTEXT_CHANGING_HELPERS.has(helper);
  } else {
    walkExpression(block.path, scope, collector);
  }
  const inner: Scope = {
    frames: changesContext ? [...scope.frames, "item"] : scope.frames,
    blockParams: new Set([...scope.blockParams, ...(block.program?.blockParams ?? [])]),
  };
  if (block.program) walkProgram(block.program, inner, collector);
  if (block.inverse) walkProgram(block.inverse, scope, collector);
}

/** A helper call or a plain reference: `{{name}}`, `{{helper arg key=value}}`. */
type Call = Pick<hbs.AST.MustacheStatement, "path" | "params" | "hash">;

function walkCall({ path, params, hash }: Call, scope: Scope, collector: Collector): void {
  if (hasArguments(params, hash)) {
    noteHelper(path, collector);
    walkArguments(params, hash, scope, collector);
    return;
  }
  walkExpression(path, scope, collector);
}

function walkArguments(
  params: readonly hbs.AST.Expression[],
  hash: hbs.AST.Hash | undefined,
  scope: Scope,
  collector: Collector,
): void {
  for (const param of params) walkExpression(param, scope, collector);
  for (const pair of hash?.pairs ?? []) walkExpression(pair.value, scope, collector);
}

function walkExpression(expression: hbs.AST.Expression, scope: Scope, collector: Collector): void {
  if (expression.type === "SubExpression") {
    const call = expression as hbs.AST.SubExpression;
    noteHelper(call.path, collector);
    walkArguments(call.params, call.hash, scope, collector);
    return;
  }
  if (expression.type !== "PathExpression") return;
  const path = expression as hbs.AST.PathExpression;
  const parts = rootParts(path, scope);
  if (parts === undefined) return;
  const [name] = parts;
  if (name === undefined) return;
  collector.variables.push({ name, path: parts.join("."), line: path.loc?.start.line ?? 1 });
}

/** The parts of a path relative to the root variables object, or undefined when it reads something else. */
function rootParts(path: hbs.AST.PathExpression, scope: Scope): readonly string[] | undefined {
  if (path.data) {
    return path.parts[0] === "root" && path.parts.length > 1 ? path.parts.slice(1) : undefined;
  }
  if (path.parts.length === 0) return undefined;
  const first = path.parts[0] ?? "";
  const explicitThis = /^this[./]/.test(path.original);
  if (path.depth === 0 && !explicitThis && scope.blockParams.has(first)) return undefined;
  const frame = scope.frames[scope.frames.length - 1 - path.depth];
  return frame === "root" ? path.parts : undefined;
}

function noteHelper(path: hbs.AST.Expression, collector: Collector): void {
  const name = helperName(path);
  if (name !== undefined && !BUILTIN_HELPERS.includes(name)) collector.unknownHelpers.add(name);
}

function helperName(path: hbs.AST.Expression): string | undefined {
  if (path.type !== "PathExpression") return undefined;
  const expression = path as hbs.AST.PathExpression;
  return expression.data || expression.depth > 0 ? undefined : expression.original;
}

function hasArguments(
  params: readonly hbs.AST.Expression[],
  hash: hbs.AST.Hash | undefined,
): boolean {
  return params.length > 0 || (hash?.pairs.length ?? 0) > 0;
}

function expressionText(expression: hbs.AST.Expression): string {
  if (expression.type === "PathExpression") return (expression as hbs.AST.PathExpression).original;
  if (expression.type === "StringLiteral") return (expression as hbs.AST.StringLiteral).value;
  return expression.type;
}
