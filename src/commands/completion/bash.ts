import { flattenTree, type CompletionCommand } from './tree.js';
import { dataFunctions, header, words, type ScriptInfo } from './shared.js';

/**
 * The bash script: a few data functions (one `case` per command path) and one completion function that walks
 * the words typed so far. Plain bash 3.2 (macOS's), no associative arrays and no bash-completion package needed.
 */
export function bashScript(root: CompletionCommand, info: ScriptInfo): string {
  const table = (name: string, rows: [label: string, value: string][]) =>
    [
      `${name}() {`,
      '  case "$1" in',
      ...rows.filter(([, value]) => value !== '').map(([label, value]) => `    ${label}) echo '${value}' ;;`),
      '  esac',
      '}',
    ].join('\n');
  return `${header('bash', info)}
${dataFunctions(flattenTree(root), { table, named: (items) => words(items.map((item) => item.name)), plain: words })}

${BASH_FUNCTIONS}`;
}

/** The functions that walk the words typed and complete them from the data functions above: the same for every cai. */
const BASH_FUNCTIONS = `_cai_has() {
  case " $1 " in *" $2 "*) return 0 ;; esac
  return 1
}

_cai_complete_with() {
  local IFS=$'\n'
  case "$1" in
    @files) compopt -o filenames 2>/dev/null; COMPREPLY=( $(compgen -f -- "$2") ) ;;
    @directories) compopt -o filenames 2>/dev/null; COMPREPLY=( $(compgen -d -- "$2") ) ;;
    *) IFS=$' \t\n'; COMPREPLY=( $(compgen -W "$1" -- "$2") ) ;;
  esac
}

_cai() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="" cmdpath="" word i=1 flag="" values
  COMPREPLY=()
  # Which command the words before the cursor name, skipping options and the values they take.
  while [ "$i" -lt "$COMP_CWORD" ]; do
    word="\${COMP_WORDS[i]}"
    case "$word" in
      --) break ;;
      -*)
        if _cai_has "$(_cai_required_value_flags "$cmdpath")" "$word"; then
          i=$((i + 1))
        elif _cai_has "$(_cai_optional_value_flags "$cmdpath")" "$word" && [ $((i + 1)) -lt "$COMP_CWORD" ]; then
          case "\${COMP_WORDS[i + 1]}" in -*) ;; *) i=$((i + 1)) ;; esac
        fi
        ;;
      *)
        if _cai_has "$(_cai_subcommands "$cmdpath")" "$word"; then cmdpath="\${cmdpath:+$cmdpath }$word"; fi
        ;;
    esac
    i=$((i + 1))
  done
  [ "$COMP_CWORD" -gt 0 ] && prev="\${COMP_WORDS[COMP_CWORD - 1]}"
  # --flag=value: bash splits the word at "=" (COMP_WORDBREAKS).
  if [ "$cur" = "=" ]; then
    flag="$prev"
    cur=""
  elif [ "$prev" = "=" ] && [ "$COMP_CWORD" -gt 1 ]; then
    flag="\${COMP_WORDS[COMP_CWORD - 2]}"
  elif _cai_has "$(_cai_required_value_flags "$cmdpath") $(_cai_optional_value_flags "$cmdpath")" "$prev"; then
    flag="$prev"
  fi
  # An option whose value is optional, then a word that starts with "-": that word is the next option.
  if [ -n "$flag" ] && _cai_has "$(_cai_optional_value_flags "$cmdpath")" "$flag"; then
    case "$cur" in -*) flag="" ;; esac
  fi
  if [ -n "$flag" ]; then
    values="$(_cai_values "$cmdpath|$flag")"
    if [ -n "$values" ]; then
      _cai_complete_with "$values" "$cur"
      return 0
    fi
    # A value with no known set (a URL, a number): nothing to offer, unless the option's value is optional.
    if _cai_has "$(_cai_required_value_flags "$cmdpath")" "$flag"; then return 0; fi
  fi
  case "$cur" in
    -*) COMPREPLY=( $(compgen -W "$(_cai_flags "$cmdpath")" -- "$cur") ) ;;
    *)
      values="$(_cai_subcommands "$cmdpath")"
      [ -z "$values" ] && values="$(_cai_positional "$cmdpath")"
      [ -n "$values" ] && _cai_complete_with "$values" "$cur"
      ;;
  esac
  return 0
}

# \`npx cai-toolkit …\` (npx's own flags first, if any): the words after it complete as cai's. Anything else npx runs
# is completed as that command would be (bash-completion's _command_offset), or as file names without it.
_cai_npx() {
  local i=1 cur="\${COMP_WORDS[COMP_CWORD]}"
  while [ "$i" -lt "$COMP_CWORD" ]; do
    case "\${COMP_WORDS[i]}" in
      cai-toolkit|cai-toolkit@*)
        COMP_WORDS=(cai "\${COMP_WORDS[@]:i+1}")
        COMP_CWORD=$((COMP_CWORD - i))
        _cai
        return 0
        ;;
      -*) i=$((i + 1)) ;;
      *) break ;;
    esac
  done
  COMPREPLY=()
  if [ "$i" -eq "$COMP_CWORD" ]; then
    case cai-toolkit in "$cur"*) [ -n "$cur" ] && COMPREPLY=(cai-toolkit) && return 0 ;; esac
  fi
  if [ "$i" -lt "$COMP_CWORD" ] && declare -F _command_offset >/dev/null; then
    _command_offset "$i"
    return 0
  fi
  COMPREPLY=( $(compgen -f -- "$cur") )
  return 0
}

# The package installs the command under both names; \`npx cai-toolkit\` runs it where it is installed.
complete -F _cai cai cai-toolkit
complete -F _cai_npx -o default npx
`;
