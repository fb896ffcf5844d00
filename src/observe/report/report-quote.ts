/**
 * What a failed command printed, as the report shows it (docs/report.md#report): its meaningful
 * lines in sight (docs/completion.md#quoted-output), all it printed collapsed below them.
 */
import { type Html, html } from "./html.js";

export function renderQuote(
  quoted: readonly string[] | undefined,
  output: string | undefined,
  summary: string,
): Html {
  const lines =
    quoted === undefined || quoted.length === 0
      ? html``
      : html`<pre class="quoted">${quoted.join("\n")}</pre>`;
  const whole =
    output === undefined || output === ""
      ? html``
      : html`<details class="check-output"><summary>${summary}</summary><pre>${output}</pre></details>`;
  return html`${lines}${whole}`;
}
