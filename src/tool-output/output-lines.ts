/** CSI/OSC escape sequences (colors, cursor moves, hyperlinks) as terminals and CI logs see them. */
const ANSI_PATTERN =
  /[\u001B\u009B][[\]()#;?]*(?:(?:(?:;[-a-zA-Z\d/#&.:=?%@~_]+)*|[a-zA-Z\d]+(?:;[-a-zA-Z\d/#&.:=?%@~_]*)*)?\u0007|(?:\d{1,4}(?:;\d{0,4})*)?[\dA-PR-TZcf-nq-uy=><~])/g;

/** OSC sequences such as hyperlinks, ended by BEL or by ESC \\ (string terminator). */
const OSC_PATTERN = /\u001B\][^\u0007\u001B]*(?:\u0007|\u001B\\)/g;

/** Removes terminal escape sequences, so parsers see text whether color was on or off. */
export function stripAnsi(text: string): string {
  return text.replace(OSC_PATTERN, "").replace(ANSI_PATTERN, "");
}

/** Longer lines are cut before parsing: no name or message needs more, and it bounds regex work. */
const MAX_PARSED_LINE_CHARS = 4000;

/**
 * The lines of captured output as a reader would see them: escape sequences
 * removed, `\r\n` ends normalized, a line redrawn with `\r` reduced to its
 * last state, and each line cut at `maxLineChars`.
 */
export function splitOutputLines(text: string, maxLineChars = MAX_PARSED_LINE_CHARS): string[] {
  return stripAnsi(text)
    .split("\n")
    .map((line) => {
      const withoutEnd = line.endsWith("\r") ? line.slice(0, -1) : line;
      const redrawAt = withoutEnd.lastIndexOf("\r");
      const shown = redrawAt === -1 ? withoutEnd : withoutEnd.slice(redrawAt + 1);
      return shown.length > maxLineChars ? shown.slice(0, maxLineChars) : shown;
    });
}

/** stdout then stderr, as one text with a line break between them when needed. */
export function joinOutput(stdout: string, stderr: string): string {
  if (stdout === "" || stderr === "") return stdout + stderr;
  return stdout.endsWith("\n") ? stdout + stderr : `${stdout}\n${stderr}`;
}
