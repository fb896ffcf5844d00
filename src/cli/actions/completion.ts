import type { Command } from "commander";
import { renderBashScript } from "../shell-completion/bash.js";
import { readCommandTree } from "../shell-completion/command-tree.js";
import { renderFishScript } from "../shell-completion/fish.js";
import { renderZshScript } from "../shell-completion/zsh.js";

const RENDERERS = { bash: renderBashScript, zsh: renderZshScript, fish: renderFishScript };

/** `closer completion <shell>`: the script for `shell`, made from `program`'s own definition. */
export function writeCompletionScript(shell: keyof typeof RENDERERS, program: Command): void {
  process.stdout.write(RENDERERS[shell](readCommandTree(program)));
}
