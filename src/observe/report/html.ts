/**
 * HTML built so that nothing from the record can become markup
 * (docs/report.md#escaping): every interpolation of `html` is escaped unless
 * it is itself `Html` — made by `html`, or by `trustedHtml` for the report's
 * own constant markup.
 */
export class Html {
  readonly #text: string;
  constructor(text: string) {
    this.#text = text;
  }
  toString(): string {
    return this.#text;
  }
}

/** What `html` accepts in a `${}`: text is escaped, lists are joined, nothing becomes "". */
export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[];

const ENTITIES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "`": "&#96;",
};

/** Text made safe inside an element and inside a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (character) => ENTITIES[character] ?? character);
}

function renderValue(value: HtmlValue): string {
  if (value instanceof Html) return value.toString();
  if (Array.isArray(value)) return value.map(renderValue).join("");
  if (value === undefined || value === null || value === false || value === true) return "";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "";
  return escapeHtml(String(value));
}

/** The report's one way to make markup: `html\`<p>${text}</p>\``. */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): Html {
  let text = strings[0] ?? "";
  values.forEach((value, index) => {
    text += renderValue(value) + (strings[index + 1] ?? "");
  });
  return new Html(text);
}

/** Markup the report itself wrote (its stylesheet and script), taken as it is. */
export function trustedHtml(text: string): Html {
  return new Html(text);
}
