#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# completion.sh BIOBENCH COMPLETION_FILE - the bash completion completes
# commands, calibrate's options and the values of run's enumerated options
# (taken from the real `biobench run --help`), in both forms readline gives
# it: "--opt VAL" and "--opt=VAL" (split at the '=').
set -u
bin=$1 comp=$2
fail=0
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
ln -s "$(readlink -f "$bin")" "$dir/biobench"
PATH=$dir:$PATH
# shellcheck source=/dev/null
source "$comp"

# expect WORD... -- EXPECTED...: complete the last word, the replies must
# contain every EXPECTED and nothing that does not start with the word
expect() {
    local -a w=() want=()
    while [[ $1 != -- ]]; do w+=("$1"); shift; done
    shift
    want=("$@")
    COMP_WORDS=("${w[@]}")
    COMP_CWORD=$((${#w[@]} - 1))
    COMP_LINE="${w[*]}"
    COMP_POINT=${#COMP_LINE}
    COMPREPLY=()
    _biobench
    local got=" ${COMPREPLY[*]} " x
    for x in "${want[@]}"; do
        if [[ $got != *" $x "* ]]; then
            echo "FAIL: '${w[*]}' completes to [${COMPREPLY[*]}], missing $x"
            fail=1
        fi
    done
    [[ ${#COMPREPLY[@]} -gt 0 ]] || { echo "FAIL: '${w[*]}' completes to nothing"; fail=1; }
}
# refuse: the replies must not contain X
refuse() {
    local x=$1; shift
    local got=" ${COMPREPLY[*]} "
    if [[ $got == *" $x "* ]]; then
        echo "FAIL: replies [${COMPREPLY[*]}] contain $x"; fail=1
    fi
}

expect biobench ca -- calibrate
expect biobench ti -- tiou
expect biobench calibrate --j -- --jobs
expect biobench calibrate --s -- --slowdown
expect biobench calibrate --c -- --cross-job
expect biobench run --bio-cache "" -- off task irq irq_fast all all_split
expect biobench run --bio-cache = irq -- irq irq_fast
refuse all
expect biobench run --rw = rand -- randread randwrite randrw
refuse read
expect biobench ab --mode "" -- irq poll sqpoll
expect biobench run --model "" -- bio none
expect biobench tiou --completion = "" -- inline thread irq auto
expect biobench run --split-check "" -- vcnt iter
expect biobench run --bio-l -- --bio-layout
# a free-form option gets no value list
COMP_WORDS=(biobench run --iodepth ""); COMP_CWORD=3; COMPREPLY=()
_biobench
refuse off
[[ $fail == 0 ]] && echo "completion: all cases pass"
exit $fail
