/** The GitHub module: the REST/GraphQL client and the side effects after verified completion. */
export * from "./client.js";
export * from "./project-issues.js";
export * from "./resolve-repo.js";
export * from "./side-effects.js";
export * from "./translate-error.js";
