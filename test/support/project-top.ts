/**
 * The project's own folder, for a check's shell command in a test: the checks run in the clean
 * room (docs/integrity.md#clean-room), whose git names the project's git dir. A test check that
 * leaves a mark for the test to read writes it there (`cd ${PROJECT_TOP} && …`).
 */
export const PROJECT_TOP =
  '"$(dirname "$(git rev-parse --path-format=absolute --git-common-dir)")"';
