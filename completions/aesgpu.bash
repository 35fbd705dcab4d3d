# bash completion for aesgpu                                   -*- shell-script -*-
# SPDX-License-Identifier: Apache-2.0
# Install as share/bash-completion/completions/aesgpu (bash-completion 2.x loads it on first use),
# or source it into any bash: it needs nothing from bash-completion. scripts/checks/check-completions.sh
# checks it against `aesgpu COMMAND --help`: keep the option lists below in step with app/option_tables.cpp.

# __aesgpu_options COMMAND: sets the caller's `flags` (options without a value) and `valued`
# (options taking a value) for COMMAND; "" is the top level, before any command.
__aesgpu_options()
{
    case $1 in
        encrypt | decrypt)
            flags="-h --help -c --stdout -f --force -k --keep --rm --sync -r --recursive --null -P --print-key
                --no-pad --wait-for-gpu --progress --no-progress --json -v --verbose -q --quiet"
            [[ $1 == decrypt ]] && flags+=" -t --test --no-pbkdf2"
            valued="-o --output -S --suffix --filelist --output-dir --output-dir-mirror -K --key --key-file -p --pass --iter --md --key-bits --mode --iv
                --segment-size --aad --aad-file --backend --devices --streams -T --threads --io-threads --io --chunk-size"
            [[ $1 == decrypt ]] && valued+=" --range"
            ;;
        keygen)
            flags="-h --help"
            valued="-o --output --bits"
            ;;
        info)
            flags="-h --help --json"
            valued=""
            ;;
        bench)
            flags="-h --help --json"
            valued="--backend --size --key-bits --mode --direction --file --reps -T --threads --devices"
            ;;
        "")
            flags="-h --help -V --version"
            valued=""
            ;;
        *)
            flags="" valued=""
            ;;
    esac
    # one space between names, and around the list, for the " $list " == *" $name "* tests
    local -a list
    # shellcheck disable=SC2206 # split on purpose: option names hold no blanks or glob characters
    list=($flags) && flags=" ${list[*]} "
    # shellcheck disable=SC2206
    list=($valued) && valued=" ${list[*]} "
}

# __aesgpu_words: rebuilds the caller's `words`/`cword` from COMP_WORDS, joining back what bash
# split at '=' and ':' (COMP_WORDBREAKS), so that --backend=cpu and env:HOME are one word each.
# Sets `keep`: the start of the current word that bash will not replace (e.g. "--backend=").
__aesgpu_words()
{
    local i n=-1 piece sep line=${COMP_LINE-}
    words=() cword=0 keep=""
    for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
        piece=${COMP_WORDS[i]}
        sep=${line%%[![:space:]]*}
        line=${line#"$sep"}
        if ((n >= 0)) && [[ -z $sep ]] && [[ $piece =~ ^[=:]+$ || ${words[n]} =~ [=:]$ ]]; then
            ((i == COMP_CWORD)) && keep=${words[n]}
            words[n]+=$piece
        else
            words[++n]=$piece
            ((i == COMP_CWORD)) && keep=""
        fi
        [[ $line == "$piece"* ]] && line=${line#"$piece"}
        if ((i == COMP_CWORD)); then
            cword=$n
            [[ $piece =~ ^[=:]+$ ]] && keep=${words[n]}
        fi
    done
    ((n >= 0)) || words=("")
}

# __aesgpu_add PREFIX CANDIDATE...: offers PREFIX+CANDIDATE for each that extends what was typed,
# less the part bash keeps (see `keep`).
__aesgpu_add()
{
    local prefix=$1 candidate full typed=$keep$rep
    shift
    for candidate in "$@"; do
        full=$prefix$candidate
        if [[ $full == "$typed"* ]]; then
            COMPREPLY+=("${full#"$keep"}")
        fi
    done
}

# __aesgpu_paths -f|-d PREFIX: file (-f) or directory (-d) names, for a value that follows PREFIX
# in the current word.
__aesgpu_paths()
{
    local kind=$1 prefix=$2 typed=$keep$rep name full
    local -a names
    mapfile -t names < <(compgen "$kind" -- "${typed#"$prefix"}")
    compopt -o filenames 2>/dev/null
    for name in "${names[@]}"; do
        full=$prefix$name
        COMPREPLY+=("${full#"$keep"}")
    done
}

__aesgpu_files() { __aesgpu_paths -f "$1"; }
__aesgpu_dirs() { __aesgpu_paths -d "$1"; }

# __aesgpu_pass PREFIX: a passphrase source as openssl's -pass takes it.
__aesgpu_pass()
{
    local prefix=$1 typed=$keep$rep
    case ${typed#"$prefix"} in
        env:*)
            local -a names
            mapfile -t names < <(compgen -e)
            __aesgpu_add "${prefix}env:" "${names[@]}"
            ;;
        file:*) __aesgpu_files "${prefix}file:" ;;
        pass:* | fd:*) ;; # the passphrase itself, a descriptor number
        *)
            __aesgpu_add "$prefix" pass: env: file: fd: stdin
            [[ ${COMPREPLY[*]-} == *: || ${COMPREPLY[*]-} == *:\ * ]] && compopt -o nospace 2>/dev/null
            ;;
    esac
}

# __aesgpu_attached COMMAND: for -oFIL, -vpenv:HO..., completes the value given in the same word
# as its short option; fails when the current word holds no such value.
__aesgpu_attached()
{
    local j char
    for ((j = 1; j < ${#cur} - 1; j++)); do
        char=-${cur:j:1}
        if [[ $valued == *" $char "* ]]; then
            __aesgpu_value "$1" "$char" "${cur:0:j+1}"
            return 0
        fi
    done
    return 1
}

# __aesgpu_value COMMAND OPTION PREFIX: the value of OPTION, which follows PREFIX in the current word.
__aesgpu_value()
{
    local command=$1 option=$2 prefix=$3
    case $option in
        --backend)
            if [[ $command == bench ]]; then
                __aesgpu_add "$prefix" cpu gpu all
            else
                __aesgpu_add "$prefix" auto cpu gpu all
            fi
            ;;
        --devices)
            __aesgpu_add "$prefix" all
            ;;
        --io)
            __aesgpu_add "$prefix" auto direct buffered
            ;;
        --key-bits)
            if [[ $command == bench ]]; then
                __aesgpu_add "$prefix" 128 192 256 all
            else
                __aesgpu_add "$prefix" 128 192 256
            fi
            ;;
        --mode)
            if [[ $command == bench ]]; then
                __aesgpu_add "$prefix" ecb ctr gcm all
            else
                __aesgpu_add "$prefix" ecb ctr cbc gcm
            fi
            ;;
        --bits) __aesgpu_add "$prefix" 128 192 256 ;;
        --direction) __aesgpu_add "$prefix" encrypt decrypt both ;;
        -p | --pass) __aesgpu_pass "$prefix" ;;
        -o | --output | --key-file | --file | --filelist) __aesgpu_files "$prefix" ;;
        --output-dir) __aesgpu_dirs "$prefix" ;;
        *) ;; # a number, a size, a hex key or IV, or a suffix: nothing to offer
    esac
}

_aesgpu()
{
    local IFS=$' \t\n' words cword keep rep cur
    __aesgpu_words
    cur=${words[cword]}
    if (($# >= 2)); then
        rep=$2 # what readline replaces, unquoted
    else
        rep=${cur#"$keep"}
    fi
    COMPREPLY=()

    # The command is the first word that is not an option (top-level options take no value).
    local i word command="" start=0
    for ((i = 1; i < cword; i++)); do
        if [[ ${words[i]} != -* ]]; then
            command=${words[i]} start=$i
            break
        fi
    done

    local flags valued
    __aesgpu_options "$command"
    if [[ -z $command ]]; then
        if [[ $cur == -* ]]; then
            # shellcheck disable=SC2086
            __aesgpu_add "" $flags
        else
            __aesgpu_add "" encrypt decrypt keygen info bench
        fi
        return 0
    fi
    [[ "$flags$valued" == *" --help "* ]] || return 0 # a command aesgpu does not have

    # Walk the words between the command and the cursor: an option waiting for its value,
    # `--` (files only after it), redirections.
    local pending="" files_only="" char j
    for ((i = start + 1; i < cword; i++)); do
        word=${words[i]}
        if [[ -n $pending ]]; then
            pending=""
        elif [[ -n $files_only ]]; then
            :
        elif [[ $word == *[\<\>] ]]; then
            pending=redirect
        elif [[ $word == -- ]]; then
            files_only=1
        elif [[ $word == --*=* ]]; then
            :
        elif [[ $word == --* ]]; then
            [[ "$valued" == *" $word "* ]] && pending=$word
        elif [[ $word == -?* ]]; then
            # -fv, -o FILE, -oFILE: a cluster of short options, the first that takes a value ends it
            for ((j = 1; j < ${#word}; j++)); do
                char=-${word:j:1}
                if [[ "$valued" == *" $char "* ]]; then
                    ((j + 1 == ${#word})) && pending=$char
                    break
                fi
            done
        fi
    done

    if [[ $pending == redirect ]]; then
        __aesgpu_files ""
    elif [[ -n $pending ]]; then
        __aesgpu_value "$command" "$pending" ""
    elif [[ -n $files_only ]]; then
        [[ $command == encrypt || $command == decrypt || $command == info ]] && __aesgpu_files ""
    elif [[ $cur == --*=* ]]; then
        [[ "$valued" == *" ${cur%%=*} "* ]] && __aesgpu_value "$command" "${cur%%=*}" "${cur%%=*}="
    elif [[ $cur == --* ]]; then
        local option
        for option in $flags $valued; do
            [[ $option == --* ]] && __aesgpu_add "" "$option"
        done
    elif [[ $cur == -[!-]?* ]] && __aesgpu_attached "$command"; then
        :
    elif [[ $cur == -* ]]; then
        # shellcheck disable=SC2086
        __aesgpu_add "" $flags $valued
    elif [[ $command == encrypt || $command == decrypt || $command == info ]]; then
        __aesgpu_files ""
    elif [[ -z $cur ]]; then
        # keygen and bench take no file operands: show their options
        local option
        for option in $flags $valued; do
            [[ $option == --* ]] && __aesgpu_add "" "$option"
        done
    fi
    return 0
}

complete -F _aesgpu aesgpu

# ex: filetype=sh
