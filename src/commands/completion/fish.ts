import { flattenTree, type CompletionCommand, type CompletionOption } from './tree.js';
import { caseLabel, header, word, words, type ScriptInfo } from './shared.js';

/**
 * The fish script: one `complete` line per command, flag and value set, each guarded by the command path the
 * words before the cursor name (`__cai_is 'mock platform'`). The path is computed once per command line. The same
 * completions for `cai-toolkit` (a wrapper) and after `npx cai-toolkit`.
 */
export function fishScript(root: CompletionCommand, info: ScriptInfo): string {
  const commands = flattenTree(root);
  // One word a line, so that a command substitution makes a list of them (and an empty list when none).
  const table = (name: string, rows: [label: string, value: string][]) =>
    [
      `function ${name}`,
      '    switch $argv[1]',
      ...rows
        .filter(([, value]) => value !== '')
        .flatMap(([label, value]) => [`        case ${label}`, `            printf '%s\\n' ${value}`]),
      '    end',
      'end',
    ].join('\n');
  const key = (command: CompletionCommand) => caseLabel(command.path.join(' '));
  const flagsTaking = (command: CompletionCommand, value: 'required' | 'optional') =>
    words(command.options.filter((o) => o.value === value).flatMap((o) => o.flags));
  const lines: string[] = [];
  for (const command of commands) {
    const is = `-n "__cai_is ${key(command)}"`;
    for (const sub of command.subcommands)
      lines.push(`complete -c cai ${is} -a ${word(sub.name)} -d ${fishQuoted(sub.description)}`);
    for (const option of command.options) lines.push(...optionLines(command, option, is));
    if (command.positional.kind === 'files') lines.push(`complete -c cai ${is} -F`);
    if (command.positional.kind === 'directories')
      lines.push(`complete -c cai ${is} -a '(__fish_complete_directories)'`);
    if (command.positional.kind === 'words')
      lines.push(`complete -c cai ${is} -a '${words(command.positional.words)}'`);
  }
  return `${header('fish', info)}

${table(
  '__cai_subcommands',
  commands.map((c) => [key(c), words(c.subcommands.map((s) => s.name))]),
)}

${table(
  '__cai_required_value_flags',
  commands.map((c) => [key(c), flagsTaking(c, 'required')]),
)}

${table(
  '__cai_optional_value_flags',
  commands.map((c) => [key(c), flagsTaking(c, 'optional')]),
)}

${FISH_PATH_FUNCTIONS}complete -c cai -f
${lines.join('\n')}

${FISH_WRAPPERS}`;
}

function optionLines(command: CompletionCommand, option: CompletionOption, is: string): string[] {
  const names = option.flags
    .map((flag) => (flag.startsWith('--') ? `-l ${word(flag.slice(2))}` : `-s ${word(flag.slice(1))}`))
    .join(' ');
  const { completion } = option;
  const values =
    completion.kind === 'words'
      ? ` -a '${words(completion.words)}'`
      : completion.kind === 'files'
        ? ' -F'
        : completion.kind === 'directories'
          ? " -a '(__fish_complete_directories)'"
          : '';
  const description = ` -d ${fishQuoted(option.description)}`;
  if (option.value === 'required') return [`complete -c cai ${is} ${names} -r${values}${description}`];
  const plain = `complete -c cai ${is} ${names}${description}`;
  if (option.value === 'none' || values === '') return [plain];
  // fish offers -a values after an option only when it requires one: an optional value gets its own line.
  const long = option.flags.find((flag) => flag.startsWith('--')) ?? option.flags[0];
  return [plain, `complete -c cai -n "__cai_after ${caseLabel(command.path.join(' '))} ${long}"${values}`];
}

/** A fish single-quoted string: only `\\` and `'` are special inside. */
function fishQuoted(text: string): string {
  return `'${text.replace(/[\\']/g, (char) => `\\${char}`)}'`;
}

/** How the completion lines know the command the words before the cursor name: the same for every cai. */
const FISH_PATH_FUNCTIONS = `# The command the words before the cursor name, skipping options and the values they take.
function __cai_path
    set -l tokens (commandline -opc)
    set -l cmdpath ''
    set -l n (count $tokens)
    set -l i 2
    while test $i -le $n
        set -l word $tokens[$i]
        switch $word
            case '--'
                break
            case '-*'
                if contains -- $word (__cai_required_value_flags "$cmdpath")
                    set i (math $i + 1)
                else if contains -- $word (__cai_optional_value_flags "$cmdpath"); and test $i -lt $n
                    if not string match -q -- '-*' $tokens[(math $i + 1)]
                        set i (math $i + 1)
                    end
                end
            case '*'
                if contains -- $word (__cai_subcommands "$cmdpath")
                    set cmdpath (string trim -- "$cmdpath $word")
                end
        end
        set i (math $i + 1)
    end
    echo $cmdpath
end

# Every completion line asks for the path: compute it once per command line.
function __cai_is
    set -l line (commandline -pc)
    if test "$line" != "$__cai_line"
        set -g __cai_line $line
        set -g __cai_cmdpath (__cai_path)
    end
    test "$__cai_cmdpath" = "$argv[1]"
end

# The word before the cursor is the option $argv[2] of the command $argv[1] (an option whose value is optional).
function __cai_after
    set -l tokens (commandline -opc)
    test "$tokens[-1]" = "$argv[2]"; and __cai_is "$argv[1]"
end

`;

/** The same completions for the other name of the command, and after `npx cai-toolkit`. */
const FISH_WRAPPERS = `# The package installs the command under both names.
complete -c cai-toolkit --wraps cai

# \`npx cai-toolkit …\` (npx's own flags first, if any): the words after it complete as cai's; what else npx runs
# keeps its own completions.
function __cai_npx_rest
    set -l tokens (commandline -opc)
    for i in (seq 2 (count $tokens))
        switch $tokens[$i]
            case 'cai-toolkit' 'cai-toolkit@*'
                printf '%s\\n' $tokens[(math $i + 1)..-1]
                return 0
            case '-*'
                continue
            case '*'
                return 1
        end
    end
    return 1
end

function __cai_npx_complete
    set -l rest (__cai_npx_rest)
    complete -C "cai $rest "(commandline -ct)
end

complete -c npx -n '__cai_npx_rest >/dev/null' -f -a '(__cai_npx_complete)'
complete -c npx -n 'test (count (commandline -opc)) -eq 1' -a cai-toolkit -d 'Sign, verify, validate, send, mock and conformance-test the CAI push interface'
`;
