/**
 * `import()` of a package that stays outside the command bundle
 * (docs/cli.md#code-cache). The bundle runs through `node:vm`, from V8's code
 * cache, where Node 20 resolves no `import()` of its own: the build puts the
 * bundle's entry's `import()` in place of this one.
 */
export function importModule<Module>(specifier: string): Promise<Module> {
  return import(specifier) as Promise<Module>;
}
