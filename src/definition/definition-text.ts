/**
 * A definition file's text as closer reads it (docs/definition.md#file-encoding):
 * a UTF-8 byte order mark at the start is dropped and Windows (CRLF) or old
 * Mac (CR) line ends become LF, before the text is parsed or sent to a model.
 */
export function normalizeDefinitionText(text: string): string {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return body.includes("\r") ? body.replace(/\r\n?/g, "\n") : body;
}
