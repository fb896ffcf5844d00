/**
 * A C3L path word (c1, c2, c3, edition, adaptation) and an agent name. Each
 * becomes part of a file path, so none may contain a separator or start with a dot.
 */
export const WORD_PATTERN = /^[a-z0-9][a-z0-9._-]*$/;
