#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks the installed bash, zsh and fish completions of aesgpu: right values, and exactly the commands and options `aesgpu [COMMAND] --help` lists.
#
# Usage: check-completions.sh INSTALL_PREFIX AESGPU_BINARY
# INSTALL_PREFIX is where `cmake --install` put share/bash-completion/completions/aesgpu,
# share/zsh/site-functions/_aesgpu and share/fish/vendor_completions.d/aesgpu.fish.
# The bash checks and the text checks of the zsh and fish files always run; the zsh and fish
# shells' own checks run where those shells are installed. Exit status 0: all good; 1: a failure,
# each named on a FAIL line.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
prefix=${1:?usage: check-completions.sh INSTALL_PREFIX AESGPU_BINARY}
binary=${2:?usage: check-completions.sh INSTALL_PREFIX AESGPU_BINARY}
bash_file=$prefix/share/bash-completion/completions/aesgpu
zsh_file=$prefix/share/zsh/site-functions/_aesgpu
fish_file=$prefix/share/fish/vendor_completions.d/aesgpu.fish

failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}
ok() { echo "ok: $*"; }
skip() { echo "skipped: $*"; }

for file in "$bash_file" "$zsh_file" "$fish_file"; do
    [ -f "$file" ] || { echo "FAIL: not installed: $file"; exit 1; }
done
[ -x "$binary" ] || { echo "FAIL: not an executable: $binary"; exit 1; }
case $binary in /*) ;; *) binary=$PWD/$binary ;; esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/home" "$work/empty" "$work/files/sub"
ln -s "$binary" "$work/bin/aesgpu" # fish loads the completions of commands on PATH only
touch "$work/files/a.aes" "$work/files/b.txt" "$work/files/my.key"
export AESGPU_CHECK_VAR=1
run_timeout=()
command -v timeout >/dev/null 2>&1 && run_timeout=(timeout 120)

# words A B: the words of A that B lacks, space-separated ("" when none)
words_minus() {
    comm -23 <(tr ' ' '\n' <<<"$1" | sed '/^$/d' | LC_ALL=C sort -u) <(tr ' ' '\n' <<<"$2" | sed '/^$/d' | LC_ALL=C sort -u) |
        paste -sd' ' -
}
# compare WHAT EXPECTED OFFERED: one FAIL naming what is missing and what is extra
compare() {
    local missing extra
    missing=$(words_minus "$2" "$3")
    extra=$(words_minus "$3" "$2")
    if [ -n "$missing$extra" ]; then
        local what=${missing:+missing: $missing}
        fail "$1: ${what}${extra:+${what:+; }extra: $extra}"
        return 1
    fi
}

# ---------------------------------------------------------------------------------------------
# What the binary says. CLI11 lists an option at the start of an indented line (`  -o,--output OUT`,
# `  --rm Excludes: --keep`; newer versions `  -o, --output OUT`, long-only names maybe aligned further
# right), a description alone at its column (30 by default), and a command as `  NAME  text` in
# the Subcommands section. Section headers are Options:, OPTIONS:, or an option group's name.

help_text() { "$binary" "$@" --help 2>&1 || true; }
# help_options: the option names (-x and --long) a help text lists, one a line
help_options() { awk -f "$here/help-options.awk"; }
help_commands() {
    awk '
        /^[^ \t]/ { section = tolower($0); next }
        /^[ \t]*$/ { section = ""; next }
        section ~ /^subcommands:/ && match($0, /^ +[A-Za-z]/) && RLENGTH <= 17 { print $1 }'
}
longs() { grep -e '^--' | sort -u | paste -sd' ' - || true; }
shorts() { grep -e '^-[^-]' | sort -u | paste -sd' ' - || true; }

top_help=$(help_text)
help_cmds=$(help_commands <<<"$top_help" | sort -u | paste -sd' ' -)
[ -n "$help_cmds" ] || { echo "FAIL: \`$binary --help\` lists no subcommands:"; echo "$top_help"; exit 1; }
declare -A help_long help_short
help_long[aesgpu]=$(help_options <<<"$top_help" | longs)
help_short[aesgpu]=$(help_options <<<"$top_help" | shorts)
for command in $help_cmds; do
    text=$(help_text "$command")
    if ! grep -Eiq "^usage:.*[[:space:]]$command([[:space:]]|\$)" <<<"$text"; then
        fail "\`aesgpu $command --help\` does not print the help of $command (no 'Usage: ... $command' line)"
    fi
    help_long[$command]=$(help_options <<<"$text" | longs)
    help_short[$command]=$(help_options <<<"$text" | shorts)
done
ok "aesgpu --help lists: $help_cmds"

# ---------------------------------------------------------------------------------------------
# The same questions to every shell. A query is a command line, the cursor at its end; where the
# last word holds '=' or ':' (--backend=c, env:HO), bash replaces only what follows, zsh and fish
# the whole word: answers are compared without that start.

queries=() expected=() # expected: "-" for "compare with the help" queries, made below
add() {
    queries+=("$1")
    expected+=("$2")
}
add 'aesgpu enc' 'encrypt'
add 'aesgpu encrypt --back' '--backend'
add 'aesgpu encrypt --backend ' 'auto cpu gpu all'
add 'aesgpu decrypt --backend ' 'auto cpu gpu all'
add 'aesgpu encrypt --backend=' 'auto cpu gpu all'
add 'aesgpu encrypt --backend=g' 'gpu'
add 'aesgpu encrypt --devices ' 'all'
add 'aesgpu encrypt --key-bits ' '128 192 256'
add 'aesgpu keygen --bits ' '128 192 256'
add 'aesgpu bench --backend ' 'cpu gpu all'
add 'aesgpu bench --key-bits ' '128 192 256 all'
add 'aesgpu encrypt --mode ' 'ecb ctr cbc gcm'
add 'aesgpu decrypt --mode=c' 'ctr cbc'
add 'aesgpu bench --mode ' 'ecb ctr gcm all'
add 'aesgpu bench --direction ' 'encrypt decrypt both'
add 'aesgpu encrypt --key-file ' 'a.aes b.txt my.key sub'
add 'aesgpu encrypt --key-file m' 'my.key'
add 'aesgpu decrypt ' 'a.aes b.txt my.key sub'
add 'aesgpu encrypt -f ' 'a.aes b.txt my.key sub'
add 'aesgpu decrypt -- ' 'a.aes b.txt my.key sub'
add 'aesgpu decrypt -o ' 'a.aes b.txt my.key sub'
add 'aesgpu keygen --output ' 'a.aes b.txt my.key sub'
add 'aesgpu bench --file ' 'a.aes b.txt my.key sub'
add 'aesgpu decrypt --filelist ' 'a.aes b.txt my.key sub'
add 'aesgpu encrypt --output-dir ' 'sub'
add 'aesgpu encrypt -p ' 'pass: env: file: fd: stdin'
add 'aesgpu decrypt -p env:AESGPU_CHECK_' 'AESGPU_CHECK_VAR'
add 'aesgpu encrypt --pass=file:m' 'my.key'
add 'aesgpu encrypt --iter ' ''
add 'aesgpu encrypt --chunk-size ' ''
add 'aesgpu bench --size ' ''
add 'aesgpu decrypt --tes' '--test'
add 'aesgpu encrypt --tes' ''
add 'aesgpu ' '-'
add 'aesgpu --' '-'
add 'aesgpu -' '-'
for command in $help_cmds; do
    add "aesgpu $command --" '-'
    add "aesgpu $command -" '-'
done

# normalize LINE: candidates on stdin, one a line; prints them space-separated, less the part
# of the last word up to its last '=' or ':', and less a trailing / (directories)
normalize() {
    local last=${1##* } start=""
    [[ $last == *[=:]* ]] && start=${last%"${last##*[=:]}"}
    local candidate
    while IFS= read -r candidate; do
        [ -n "$candidate" ] || continue
        candidate=${candidate#"$start"}
        printf '%s\n' "${candidate%/}"
    done | sort -u | paste -sd' ' -
}

# check SHELL FILE: FILE holds "N<TAB>candidate" lines, N the query's index
check_answers() {
    local shell=$1 answers=$2 i line want got command against passed=0 total=${#queries[@]}
    for ((i = 0; i < total; i++)); do
        line=${queries[i]}
        got=$(awk -F'\t' -v n="$i" '$1 == n { print $2 }' "$answers" | normalize "$line")
        want=${expected[i]} against="the expected completions"
        if [ "$want" = - ]; then
            against="the help's list"
            case $line in
                'aesgpu ') want=$help_cmds ;;
                'aesgpu --') want=${help_long[aesgpu]} ;;
                'aesgpu -') want="${help_long[aesgpu]} ${help_short[aesgpu]}" ;;
                *' --')
                    command=${line#aesgpu }
                    command=${command% --}
                    want=${help_long[$command]-}
                    ;;
                *' -')
                    command=${line#aesgpu }
                    command=${command% -}
                    want="${help_long[$command]-} ${help_short[$command]-}"
                    ;;
            esac
        fi
        compare "$shell: \`$line<TAB>\` against $against" "$want" "$got" && passed=$((passed + 1))
    done
    echo "$shell: $passed of $total completions as expected"
}

# ---------------------------------------------------------------------------------------------
# bash: source the file into a bash without startup files and call its function as bash would.

cat >"$work/driver.bash" <<'EOF'
# driver.bash MODE FILE QUERY...: MODE "source" sources FILE; "loader" lets bash-completion find it
mode=$1 file=$2
shift 2
if [[ $mode == loader ]]; then
    source "$AESGPU_BASH_COMPLETION" || exit 3
    if declare -F _comp_load >/dev/null; then
        _comp_load aesgpu
    elif declare -F __load_completion >/dev/null; then
        __load_completion aesgpu
    else
        _completion_loader aesgpu
    fi
else
    source "$file" || exit 3
fi
set -uf
printf 'complete\t%s\n' "$(complete -p aesgpu 2>&1)"
declare -F _aesgpu >/dev/null || exit 0
i=0
for line in "$@"; do
    # split as readline does: at blanks, and '=' and ':' (COMP_WORDBREAKS) are words of their own
    COMP_WORDS=()
    for word in $line; do
        while [[ $word =~ ^([^=:]*)([=:]+)(.*)$ ]]; do
            [[ -n ${BASH_REMATCH[1]} ]] && COMP_WORDS+=("${BASH_REMATCH[1]}")
            COMP_WORDS+=("${BASH_REMATCH[2]}")
            word=${BASH_REMATCH[3]}
        done
        [[ -n $word ]] && COMP_WORDS+=("$word")
    done
    [[ $line == *' ' ]] && COMP_WORDS+=("")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMP_LINE=$line
    COMP_POINT=${#line}
    current=${COMP_WORDS[COMP_CWORD]}
    [[ $current =~ ^[=:]+$ ]] && current=""
    COMPREPLY=()
    _aesgpu aesgpu "$current" "${COMP_WORDS[COMP_CWORD - 1]}"
    for reply in "${COMPREPLY[@]}"; do
        printf '%s\t%s\n' "$i" "$reply"
    done
    i=$((i + 1))
done
EOF

bash_check() {
    local mode=$1 label=$2 answers=$work/bash-$1.txt status=0
    (cd "$work/files" && env HOME="$work/home" AESGPU_BASH_COMPLETION="$bash_completion_main" BASH_COMPLETION_USER_DIR="$work/empty" XDG_DATA_DIRS="$prefix/share" \
        bash --norc --noprofile "$work/driver.bash" "$mode" "$bash_file" "${queries[@]}") >"$answers" 2>"$work/bash-$1.err" || status=$?
    if [ "$status" != 0 ] || [ -s "$work/bash-$1.err" ]; then
        fail "$label: the bash driver exited with status $status, or wrote to stderr:"
        cat "$work/bash-$1.err"
        return
    fi
    local registered
    registered=$(awk -F'\t' '$1 == "complete" { print $2 }' "$answers")
    if [[ $registered != *"-F _aesgpu aesgpu"* ]]; then
        fail "$label: \`complete -p aesgpu\` says '$registered', not 'complete -F _aesgpu aesgpu'"
        return
    fi
    ok "$label: $registered"
    check_answers "$label" "$answers"
}
bash_completion_main=""
bash_check source "bash (plain, file sourced)"

for candidate in /usr/share/bash-completion/bash_completion /usr/local/share/bash-completion/bash_completion \
    /opt/homebrew/share/bash-completion/bash_completion; do
    [ -f "$candidate" ] && { bash_completion_main=$candidate; break; }
done
if [ -n "$bash_completion_main" ]; then
    bash_check loader "bash (bash-completion loads it from $prefix/share)"
else
    skip "bash-completion is not installed: its loader is not tried"
fi

# ---------------------------------------------------------------------------------------------
# Text checks: the long options each zsh and fish block names, against the help.

# zsh: options between "# options of: COMMAND..." and the next such line or "# end of options",
# descriptions in [...] left out; commands between "# commands" and "# end of commands".
zsh_options() {
    awk -v want="$1" '
        /^[ \t]*# options of:/ { line = $0; sub(/.*# options of:[ \t]*/, "", line); on = (" " line " ") ~ (" " want " "); next }
        /^[ \t]*# end of options/ { on = 0; next }
        on {
            line = $0
            gsub(/\[[^]]*\]/, "", line)
            while (match(line, /--[A-Za-z0-9][-A-Za-z0-9_]*/)) {
                print substr(line, RSTART, RLENGTH)
                line = substr(line, RSTART + RLENGTH)
            }
        }' "$zsh_file" | sort -u | paste -sd' ' -
}
zsh_commands() {
    awk '
        /^[ \t]*# commands/ { on = 1; next }
        /^[ \t]*# end of commands/ { on = 0; next }
        on && match($0, /^[ \t]*'\''[A-Za-z][-A-Za-z0-9_]*:/) { line = $0; sub(/^[ \t]*'\''/, "", line); sub(/:.*/, "", line); print line }
    ' "$zsh_file" | sort -u | paste -sd' ' -
}
# fish: the -l options of each `complete -c aesgpu` line, by its condition: '__aesgpu_using CMD...'
# or __aesgpu_no_command (the top level, whose -a words are the commands).
fish_lines() {
    awk -v want="$1" -v what="$2" '
        $1 != "complete" { next }
        {
            commands = ""
            if (match($0, /__aesgpu_using [A-Za-z0-9 _-]+/)) {
                commands = substr($0, RSTART + 15, RLENGTH - 15)
            } else if ($0 ~ /__aesgpu_no_command/) {
                commands = "aesgpu"
            }
            if ((" " commands " ") !~ (" " want " ")) next
            for (i = 1; i < NF; i++) {
                if (what == "long" && ($i == "-l" || $i == "--long-option")) print "--" $(i + 1)
                if (what == "args" && ($i == "-a" || $i == "--arguments")) { word = $(i + 1); gsub(/'\''/, "", word); print word }
            }
        }' "$fish_file" | sort -u | paste -sd' ' -
}
text_failures=$failures
compare "zsh file, commands" "$help_cmds" "$(zsh_commands)" || true
compare "fish file, commands" "$help_cmds" "$(fish_lines aesgpu args)" || true
for command in aesgpu $help_cmds; do
    compare "zsh file, options of $command" "${help_long[$command]}" "$(zsh_options "$command")" || true
    compare "fish file, options of $command" "${help_long[$command]}" "$(fish_lines "$command" long)" || true
done
[ "$failures" = "$text_failures" ] && ok "the zsh and fish files name the commands and long options the help lists"

# ---------------------------------------------------------------------------------------------
# zsh: parse, load through compinit, then complete in a zsh driven through a pseudo-terminal.

if command -v zsh >/dev/null 2>&1; then
    if ! zsh -n "$zsh_file"; then
        fail "zsh -n $zsh_file"
    elif ! out=$(cd "$work/empty" && HOME=$work/home zsh -f -c '
            fpath=("$1" $fpath)
            autoload -U compinit && compinit -u -d "$2/zcompdump" || exit 1
            [[ ${_comps[aesgpu]-} == _aesgpu ]] || { print "compinit did not bind aesgpu to _aesgpu"; exit 1 }
            autoload +X _aesgpu || exit 1
            unfunction _aesgpu; unset "_comps[aesgpu]"
            source "$1/_aesgpu" || exit 1
            [[ ${_comps[aesgpu]-} == _aesgpu ]] || { print "sourcing did not bind aesgpu to _aesgpu"; exit 1 }
        ' zsh "${zsh_file%/*}" "$work" 2>&1); then
        fail "zsh does not load $zsh_file: $out"
    else
        ok "zsh: parses and loads through fpath and compinit, and by source"
        if zsh -f -c 'zmodload zsh/zpty && zpty aesgpu_probe true && zpty -d aesgpu_probe' >/dev/null 2>&1; then
            cat >"$work/capture.zsh" <<'EOF'
# sourced in an interactive `zsh -f`: Tab completes and prints each candidate as <<candidate>>, then <<done>>
fpath=($AESGPU_ZSH_DIR $fpath)
autoload -U compinit && compinit -u -d $AESGPU_WORK/zcompdump-pty
zmodload zsh/zutil
zstyle ':completion:*' list-grouped false
zstyle ':completion:*' insert-tab false
compadd() {
    # -O, -A and -D collect matches in arrays rather than add them
    if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return $?; fi
    local -a __hits
    builtin compadd -A __hits "$@"
    local -A apre hpre
    zparseopts -E P:=apre p:=hpre
    local h
    for h in $__hits; do print -r -- "<<$IPREFIX${apre[-P]-}${hpre[-p]-}$h>>"; done
    builtin compadd "$@"
}
_aesgpu_check_done() { print -r -- '<<done>>'; compstate[insert]=; compstate[list]= }
_aesgpu_check_complete() { comppostfuncs=(_aesgpu_check_done); _main_complete "$@" }
zle -C aesgpu-check complete-word _aesgpu_check_complete
bindkey '^I' aesgpu-check
PROMPT='' RPROMPT=''
print -r -- '<<ready>>'
EOF
            cat >"$work/zsh-driver.zsh" <<'EOF'
zmodload zsh/zpty
zpty aesgpu zsh -f -i
zpty -w aesgpu "source ${(q)AESGPU_WORK}/capture.zsh"
zpty -r aesgpu out '*<<ready>>*'
integer i=0
local line chunk hit
for line in "$@"; do
    zpty -w -n aesgpu "$line"$'\t'
    zpty -r aesgpu chunk '*<<done>>*'
    for hit in ${(f)"$(print -r -- $chunk | grep -o '<<[^<>]*>>')"}; do
        hit=${${hit#<<}%>>}
        [[ $hit == done ]] || print -r -- "$i"$'\t'"${(Q)hit}"
    done
    zpty -w -n aesgpu $'\C-u'
    i+=1
done
zpty -d aesgpu
EOF
            status=0
            (cd "$work/files" && env HOME="$work/home" PATH="$work/bin:$PATH" AESGPU_WORK="$work" \
                AESGPU_ZSH_DIR="${zsh_file%/*}" ${run_timeout[@]+"${run_timeout[@]}"} zsh -f "$work/zsh-driver.zsh" "${queries[@]}") \
                >"$work/zsh.txt" 2>"$work/zsh.err" || status=$?
            if [ "$status" != 0 ]; then
                fail "zsh: the pseudo-terminal driver exited with status $status: $(cat "$work/zsh.err")"
            else
                check_answers "zsh" "$work/zsh.txt"
            fi
        else
            skip "zsh cannot start a pseudo-terminal (zsh/zpty): zsh completes nothing here, only parses and loads the file"
        fi
    fi
else
    skip "zsh is not installed: $zsh_file is only text-checked"
fi

# ---------------------------------------------------------------------------------------------
# fish: parse, then `complete -C` with the file where fish looks for it.

if command -v fish >/dev/null 2>&1; then
    fish_options=()
    fish --no-config -c true >/dev/null 2>&1 && fish_options=(--no-config)
    if ! out=$(fish --no-execute "$fish_file" 2>&1); then
        fail "fish --no-execute $fish_file: $out"
    else
        ok "fish: parses"
        status=0
        # shellcheck disable=SC2016 # fish code, expanded by fish
        (cd "$work/files" && env HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_DATA_HOME="$work/home/.local/share" \
            PATH="$work/bin:$PATH" ${run_timeout[@]+"${run_timeout[@]}"} fish ${fish_options[@]+"${fish_options[@]}"} -c '
                set -g fish_complete_path $argv[1]
                set -l i 0
                for line in $argv[2..-1]
                    for candidate in (complete --do-complete=$line | string replace -r -- "\t.*" "")
                        printf "%s\t%s\n" $i $candidate
                    end
                    set i (math $i + 1)
                end' "${fish_file%/*}" "${queries[@]}") >"$work/fish.txt" 2>"$work/fish.err" || status=$?
        if [ "$status" != 0 ] || [ -s "$work/fish.err" ]; then
            fail "fish: complete -C exited with status $status: $(cat "$work/fish.err")"
        else
            check_answers "fish (autoloaded from ${fish_file%/*})" "$work/fish.txt"
        fi
    fi
else
    skip "fish is not installed: $fish_file is only text-checked"
fi

if [ "$failures" != 0 ]; then
    echo "$failures check(s) failed: the completions in completions/ and the options in app/option_tables.cpp differ (or a completion is broken)"
    exit 1
fi
echo "all completion checks passed"
