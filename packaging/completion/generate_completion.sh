#!/usr/bin/env bash
# Writes the bash completion script of the toolkit (one file for every tool) to OUTPUT, from
# each TOOL's --help: the options are the lines boost::program_options prints ("  -d [ --device ]
# arg", "  --json"), those followed by "arg" take a value. The functions that complete values
# (design names, files, PCI locations, enumerations) are in completion_functions.bash.
# Usage: generate_completion.sh OUTPUT FUNCTIONS_FILE TOOL_PATH...
set -euo pipefail
[ $# -ge 3 ] || { echo "Usage: $0 OUTPUT FUNCTIONS_FILE TOOL_PATH..." >&2; exit 2; }
output=$1 functions=$2
shift 2
{
  echo "# bash completion for the pcie-dma-toolkit tools. Generated at build time by"
  echo "# packaging/completion/generate_completion.sh from each tool's --help: do not edit."
  cat "$functions"
  echo
  echo "_pcie_dma_toolkit_options() {"
  echo "    case \${1##*/} in"
  for tool in "$@"; do
    help=$(ASAN_OPTIONS=detect_leaks=0 "$tool" --help)
    # "  -d [ --device ] arg  text": the long name (and the short one), "=" when a value follows.
    options=""
    pattern='^  (-([[:alnum:]]) \[ )?--([[:alnum:]_-]+)( \])?( arg)?( .*)?$'
    while IFS= read -r line; do
      [[ $line =~ $pattern ]] || continue
      value=${BASH_REMATCH[5]:+=}
      options+="--${BASH_REMATCH[3]}$value "
      [ -z "${BASH_REMATCH[2]}" ] || options+="-${BASH_REMATCH[2]}$value "
    done <<<"$help"
    [ -n "$options" ] || { echo "generate_completion.sh: no option found in $tool --help" >&2; exit 1; }
    echo "        ${tool##*/}) echo '${options% }' ;;"
  done
  echo "    esac"
  echo "}"
  echo
  echo "complete -F _pcie_dma_toolkit $(for tool in "$@"; do printf '%s ' "${tool##*/}"; done)"
} > "$output.tmp"
mv "$output.tmp" "$output"
