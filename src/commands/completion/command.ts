import { Argument, type Command } from 'commander';
import { runHandler, type CommandContext, type RunState } from '../common/runner.js';
import { COMPLETED_NAMES, INSTALL, SHELLS, type Shell } from './shared.js';
import { declareCommand } from '../common/list.js';

export function registerCompletion(program: Command, state: RunState): void {
  declareCommand(program, 'completion')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(SHELLS))
    .addHelpText(
      'after',
      `
The script is generated from this version's commands and flags: regenerate it after upgrading cai. It completes
${COMPLETED_NAMES}; where cai is not on the PATH, print it with 'npx cai-toolkit completion SHELL'.

Install:
${SHELLS.map((shell) => INSTALL[shell].map((line, index) => `  ${index === 0 ? shell.padEnd(6) : '        '}${line}`).join('\n')).join('\n')}

Examples:
  $ cai completion bash > ~/.local/share/bash-completion/completions/cai
  $ cai completion zsh > "\${fpath[1]}/_cai"
  $ npx cai-toolkit completion fish > ~/.config/fish/conf.d/cai.fish`,
    )
    .action(async (shell: Shell, _options: unknown, cmd: Command) => {
      // The root program, with every command registered for this run (src/program.ts).
      const root = cmd.parent ?? cmd;
      await runHandler(state, cmd, (context) => runCompletion(shell, root, context));
    });
}

async function runCompletion(shell: Shell, program: Command, { output }: CommandContext): Promise<number> {
  // The script is read from the program itself, every command registered, so it cannot drift from the flags.
  const { completionTree } = await import('./tree.js');
  const { versionInfo } = await import('../../version.js');
  const tree = completionTree(program);
  const render = await RENDERERS[shell]();
  const script = render(tree, { version: versionInfo().version });
  if (output.json) output.printJson({ shell, script });
  else output.resultRaw(script);
  return 0;
}

/** Each shell's script, its module loaded only for the shell asked for. */
const RENDERERS = {
  bash: async () => (await import('./bash.js')).bashScript,
  zsh: async () => (await import('./zsh.js')).zshScript,
  fish: async () => (await import('./fish.js')).fishScript,
} satisfies Record<Shell, unknown>;
