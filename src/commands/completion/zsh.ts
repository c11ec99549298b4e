import { flattenTree, type CompletionCommand } from './tree.js';
import { dataFunctions, header, singleQuoted, word, type ScriptInfo } from './shared.js';

/**
 * The zsh script: the same walk as bash's, with descriptions for commands and flags (`_describe`). It works both
 * autoloaded from `$fpath` as `_cai` and evaluated in ~/.zshrc (then it registers itself with `compdef`), for
 * `cai`, `cai-toolkit` and `npx cai-toolkit`.
 */
export function zshScript(root: CompletionCommand, info: ScriptInfo): string {
  const table = (name: string, rows: [label: string, items: string[]][]) =>
    [
      `${name}() {`,
      '  case $1 in',
      ...rows
        .filter(([, items]) => items.length > 0)
        .map(([label, items]) => `    ${label}) reply=(${items.join(' ')}) ;;`),
      '    *) reply=() ;;',
      '  esac',
      '}',
    ].join('\n');
  const named = (items: { name: string; description: string }[]) =>
    items.map((item) => singleQuoted(`${word(item.name)}:${item.description}`));
  return `#compdef cai cai-toolkit npx
${header('zsh', info)}

${dataFunctions(flattenTree(root), { table, named, plain: (list) => list.map(word) })}

${ZSH_FUNCTIONS}`;
}

/**
 * The part of the script that is the same for every program: the walk over the words before the cursor, and what
 * to offer at the cursor (the tables above it say which commands, flags and values there are).
 */
const ZSH_FUNCTIONS = `_cai_complete_with() {
  case $1 in
    @files) _files ;;
    @directories) _files -/ ;;
    *) compadd -a reply ;;
  esac
}

_cai() {
  emulate -L zsh
  local cmdpath='' word='' flag='' cur=\${words[CURRENT]} prev=\${words[CURRENT-1]}
  local -a reply names required optional
  local -i i=2
  # Which command the words before the cursor name, skipping options and the values they take.
  while (( i < CURRENT )); do
    word=\${words[i]}
    case $word in
      --) break ;;
      -*)
        _cai_required_value_flags "$cmdpath"
        required=($reply)
        _cai_optional_value_flags "$cmdpath"
        optional=($reply)
        if (( \${required[(Ie)$word]} )); then
          (( i += 1 ))
        elif (( \${optional[(Ie)$word]} && i + 1 < CURRENT )) && [[ \${words[i+1]} != -* ]]; then
          (( i += 1 ))
        fi
        ;;
      *)
        _cai_subcommands "$cmdpath"
        names=(\${reply%%:*})
        if (( \${names[(Ie)$word]} )); then cmdpath=\${cmdpath:+$cmdpath }$word; fi
        ;;
    esac
    (( i += 1 ))
  done
  _cai_required_value_flags "$cmdpath"
  required=($reply)
  _cai_optional_value_flags "$cmdpath"
  optional=($reply)
  if [[ $cur == --*=* ]]; then
    flag=\${cur%%=*}
    compset -P '*='
  elif (( \${required[(Ie)$prev]} || \${optional[(Ie)$prev]} )); then
    flag=$prev
  fi
  # An option whose value is optional, then a word that starts with "-": that word is the next option.
  if [[ -n $flag && $cur == -* ]] && (( \${optional[(Ie)$flag]} )); then
    flag=''
  fi
  if [[ -n $flag ]]; then
    _cai_values "$cmdpath|$flag"
    if (( $#reply )); then
      _cai_complete_with \${reply[1]}
      return
    fi
    # A value with no known set (a URL, a number): nothing to offer, unless the option's value is optional.
    (( \${required[(Ie)$flag]} )) && return 1
  fi
  if [[ $cur == -* ]]; then
    _cai_flags "$cmdpath"
    _describe -t options 'option' reply
    return
  fi
  _cai_subcommands "$cmdpath"
  if (( $#reply )); then
    _describe -t commands 'command' reply
    return
  fi
  _cai_positional "$cmdpath"
  (( $#reply )) && _cai_complete_with \${reply[1]}
}

# \`npx cai-toolkit …\` (npx's own flags first, if any): the words after it complete as cai's. Anything else npx runs
# is completed as that command would be.
_cai_npx() {
  local -i i=2
  while (( i < CURRENT )); do
    case \${words[i]} in
      cai-toolkit|cai-toolkit@*)
        words=(cai "\${(@)words[i+1,-1]}")
        (( CURRENT -= i - 1 ))
        _cai
        return
        ;;
      -*) (( i += 1 )) ;;
      *) break ;;
    esac
  done
  if (( i == CURRENT )); then
    compadd cai-toolkit
    _command_names -e
    return
  fi
  words=("\${(@)words[i,-1]}")
  (( CURRENT -= i - 1 ))
  _normal
}

if [[ \${funcstack[1]} == _cai ]]; then
  if [[ $service == npx ]]; then
    _cai_npx "$@"
  else
    _cai "$@"
  fi
else
  compdef _cai cai cai-toolkit
  compdef _cai_npx npx
fi
`;
