#!/usr/bin/env bash
# Checks the README's experiment table (the one whose header row begins
# `| target | question`) against the registered experiments (the
# binaries dissect_experiment makes, experiments/experiments.bzl): every row
# runs a registered experiment, under its own label or an alias of it, whose
# binary says it is NAME (first line of `BIN --help`: "NAME: Question"), and
# every registered experiment has a row.
# With --exact_questions each row's question must also be the binary's
# Question, word for word. Each problem is one line naming the experiment.
#
# Usage: readme_experiments_check.sh README [--exact_questions]
#            [--no_row=LABEL]... [--alias=LABEL=BINARY]... LABEL=BINARY...
# --no_row: a registered experiment the table leaves out (documented
# elsewhere in the README). --alias: an alias of an experiment, which runs the
# same BINARY.
set -uo pipefail

readme=${1:?usage: readme_experiments_check.sh README [--exact_questions] [--no_row=LABEL]... [--alias=LABEL=BINARY]... LABEL=BINARY...}
shift
[[ -f ${readme} ]] || { echo "readme_experiments_check: no README at ${readme}" >&2; exit 2; }
exact_questions=0
declare -A label_of binary_of no_row has_row alias_binary
for arg in "$@"; do
  case ${arg} in
    --exact_questions) exact_questions=1 ;;
    --alias=*=*)
      alias=${arg#--alias=}
      alias_binary[${alias%%=*}]=${alias#*=}
      ;;
    --no_row=*) no_row[${arg#--no_row=}]=1 ;;
    *=*)
      label=${arg%%=*}
      name=${label##*[:/]}
      [[ -z ${label_of[${name}]:-} ]] ||
        { echo "readme_experiments_check: two experiments are named ${name}: ${label_of[${name}]} and ${label}" >&2; exit 2; }
      label_of[${name}]=${label}
      binary_of[${name}]=${arg#*=}
      ;;
    *) echo "readme_experiments_check: unexpected argument ${arg}" >&2; exit 2 ;;
  esac
done
(( ${#label_of[@]} > 0 )) || { echo "readme_experiments_check: no experiments given" >&2; exit 2; }

# The table's rows: target and question cells, tab-separated.
rows=$(awk '
  /^\| target \| question/ { on = 1; next }
  on && /^\| ---/ { next }
  on && !/^\|/ { exit }
  on {
    n = split($0, cell, / \| /)
    sub(/^\| */, "", cell[1])
    print cell[1] "\t" cell[2]
  }' "${readme}")
[[ -n ${rows} ]] || { echo "${readme}: no experiment table (a header row beginning | target | question)" >&2; exit 1; }

problems=0
problem() {
  echo "${readme}: $*"
  problems=$((problems + 1))
}

while IFS=$'\t' read -r target question; do
  label=${target//\`/}
  name=${label##*[:/]}
  if [[ -n ${alias_binary[${label}]:-} ]]; then
    for experiment in "${!binary_of[@]}"; do
      [[ ${binary_of[${experiment}]} != "${alias_binary[${label}]}" ]] || name=${experiment}
    done
  fi
  registered=${label_of[${name}]:-}
  if [[ -z ${registered} ]]; then
    problem "the row ${label} names no registered experiment (no dissect_experiment entry makes ${name})"
    continue
  fi
  has_row[${name}]=1
  if [[ ${label} != "${registered}" && ${alias_binary[${label}]:-} != "${binary_of[${name}]}" ]]; then
    problem "the row ${label}: experiment ${name} is ${registered}, and ${label} is no alias of it"
  fi
  first_line=$("${binary_of[${name}]}" --help 2>&1 | head -1)
  declared=${first_line#"${name}: "}
  if [[ ${declared} == "${first_line}" ]]; then
    problem "the row ${label}: \`${name} --help\` does not begin with \"${name}: \" (it says: ${first_line})"
  elif (( exact_questions )) && [[ ${question} != "${declared}" ]]; then
    problem "the row ${label}: its question is not ${name}'s declared Question \"${declared}\""
  fi
done <<<"${rows}"

for name in $(printf '%s\n' "${!label_of[@]}" | LC_ALL=C sort); do
  label=${label_of[${name}]}
  [[ -n ${has_row[${name}]:-} || -n ${no_row[${label}]:-} ]] ||
    problem "the experiment table has no row for ${name} (${label})"
done

registered_labels=" ${label_of[*]} "
for label in "${!no_row[@]}"; do
  [[ ${registered_labels} == *" ${label} "* ]] || problem "--no_row=${label} is not a registered experiment"
done

if (( problems > 0 )); then
  echo "readme_experiments_check: ${problems} problem(s)"
  exit 1
fi
echo "readme_experiments_check: ${#has_row[@]} rows match the registered experiments"
