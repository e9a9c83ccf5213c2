# SPDX-License-Identifier: GPL-2.0-only
# bash completion for biobench                                 -*- shell-script -*-
# Install as /usr/share/bash-completion/completions/biobench (or source it).
# Completes commands, each command's options, job states, files for
# `submit`/`ab`, and job ids (from `biobench jobs --json`, when a daemon
# answers within a second) for show/compare/watch/cancel, and the values of
# run's enumerated options (--bio-cache, --rw, --mode, --model, ...) as
# `biobench run --help` lists them (--opt=a|b|c).

_biobench_job_ids()
{
    local server=$1
    local -a args=(jobs --json --limit 50)
    [[ -n $server ]] && args=(--server "$server" "${args[@]}")
    timeout 1 "${COMP_WORDS[0]}" "${args[@]}" 2>/dev/null |
        sed -n 's/^ *"id": *\([0-9][0-9]*\),*$/\1/p'
}

# The values of an enumerated run option, from `biobench run --help`.
_biobench_values()
{
    "$1" run --help 2>/dev/null |
        sed -n "s/^ *$2=\([a-z0-9_|]*|[a-z0-9_|]*\)\( .*\)*$/\1/p" | head -1 | tr '|' ' '
}

_biobench()
{
    local cur prev words cword
    if declare -F _init_completion >/dev/null; then
        _init_completion || return
    else
        cur=${COMP_WORDS[COMP_CWORD]}
        prev=${COMP_WORDS[COMP_CWORD-1]}
        words=("${COMP_WORDS[@]}")
        cword=$COMP_CWORD
    fi

    local commands="run tiou ab calibrate submit jobs show compare watch cancel devices host hosts help"
    local client_opts="--json --server --token-file --help"
    local cmd= server= i
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
            --server|--token-file) ((i++)); [[ ${words[i-1]} == --server ]] && server=${words[i]} ;;
            --server=*) server=${words[i]#--server=} ;;
            -*) ;;
            *) cmd=${words[i]}; break ;;
        esac
    done
    # a --server given after the command counts too
    for ((; i < cword; i++)); do
        [[ ${words[i]} == --server ]] && server=${words[i+1]}
        [[ ${words[i]} == --server=* ]] && server=${words[i]#--server=}
    done

    case $prev in
        --server) COMPREPLY=($(compgen -W "http://127.0.0.1:8420" -- "$cur")); return ;;
        --token-file) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --state) COMPREPLY=($(compgen -W "queued running done failed cancelled interrupted rebooting" -- "$cur")); return ;;
        --limit|--interval|--repeat|--warmup|--min-effect|--variant|--tiou) return ;;
        --flavor) COMPREPLY=($(compgen -W "3.33 current" -- "$cur")); return ;;
    esac

    if [[ -z $cmd ]]; then
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W "--server --token-file --help" -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$commands" -- "$cur"))
        fi
        return
    fi

    local run_opts vals
    case $cmd in
        run|ab|tiou|calibrate)
            run_opts=$("${words[0]}" run --help 2>/dev/null | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)
            # an enumerated option's value: --opt=<TAB> or --opt <TAB>
            if [[ $cur == --*=* ]]; then
                vals=$(_biobench_values "${words[0]}" "${cur%%=*}")
                if [[ -n $vals ]]; then
                    COMPREPLY=($(compgen -P "${cur%%=*}=" -W "$vals" -- "${cur#*=}"))
                    return
                fi
            elif [[ ($prev == --* || $prev == =) && $cmd != calibrate ]]; then
                # readline splits --opt=val at the '=': prev is '='
                local opt=$prev
                [[ $prev == = ]] && opt=${words[cword-2]}
                vals=$(_biobench_values "${words[0]}" "$opt")
                if [[ -n $vals ]]; then
                    COMPREPLY=($(compgen -W "$vals" -- "$cur"))
                    return
                fi
            fi
            ;;
    esac

    case $cmd in
        help)
            COMPREPLY=($(compgen -W "$commands" -- "$cur")) ;;
        run)
            if [[ $cur == -* ]]; then
                COMPREPLY=($(compgen -W "$run_opts" -- "$cur"))
            else
                COMPREPLY=($(compgen -W "nop" -- "$cur") $(compgen -f -- "$cur"))
            fi ;;
        tiou)
            # t/io_uring's short options, then biobench's long ones
            if [[ $cur == --* ]]; then
                COMPREPLY=($(compgen -W "--flavor $run_opts" -- "$cur"))
            elif [[ $cur == -* ]]; then
                COMPREPLY=($(compgen -W "-d -s -c -b -p -B -F -n -N -O -t -T -r -R -X -P -V -e -u -D -h" -- "$cur"))
                compopt -o nospace 2>/dev/null
            else
                COMPREPLY=($(compgen -f -- "$cur"))
            fi ;;
        ab)
            if [[ $cur == -* ]]; then
                COMPREPLY=($(compgen -W "--a --b --repeat --warmup --min-effect --tiou --json --quiet --help $run_opts" -- "$cur"))
            elif [[ $prev == --a || $prev == --b ]]; then
                COMPREPLY=($(compgen -W "bio_cache= split_check= bio_layout= completion= inject_ns= iodepth= bs= mode= tiou= sysfs." -- "$cur"))
                compopt -o nospace 2>/dev/null
            else
                COMPREPLY=($(compgen -W "- nop" -- "$cur") $(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur"))
            fi ;;
        calibrate)
            if [[ $prev == --jobs || $prev == --slowdown || $prev == --cross-job ]]; then
                return
            elif [[ $cur == -* ]]; then
                COMPREPLY=($(compgen -W "--jobs --cross-job --slowdown --json --quiet --help" -- "$cur"))
            else
                COMPREPLY=($(compgen -W "-" -- "$cur") $(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur"))
            fi ;;
        submit)
            if [[ $cur == -* ]]; then
                COMPREPLY=($(compgen -W "--wait --interval $client_opts" -- "$cur"))
            else
                COMPREPLY=($(compgen -W "-" -- "$cur") $(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur"))
            fi ;;
        jobs)
            COMPREPLY=($(compgen -W "--state --limit $client_opts" -- "$cur")) ;;
        show|compare|cancel|watch)
            if [[ $cur == -* ]]; then
                local extra=
                [[ $cmd == watch ]] && extra=--interval
                [[ $cmd == compare ]] && extra="--variant --allow-different-workload"
                COMPREPLY=($(compgen -W "$extra $client_opts" -- "$cur"))
            else
                COMPREPLY=($(compgen -W "$(_biobench_job_ids "$server")" -- "$cur"))
            fi ;;
        devices)
            COMPREPLY=($(compgen -W "--local $client_opts" -- "$cur")) ;;
        host|hosts)
            COMPREPLY=($(compgen -W "$client_opts" -- "$cur")) ;;
    esac
} &&
    complete -F _biobench biobench

# ex: filetype=sh
