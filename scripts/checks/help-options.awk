# SPDX-License-Identifier: Apache-2.0
# The option names (-x and --long) that a CLI11 help text lists, one a line: what
# check-completions.sh and check-manpage.sh compare their files against.
/^[^ \t]/ { section = tolower($0); next }
section ~ /^(positionals|subcommands|examples)/ { next }
match($0, /^ +-/) && RLENGTH <= 17 {
    rest = substr($0, RLENGTH)
    while (match(rest, /^--?[A-Za-z0-9][-A-Za-z0-9_]*/)) {
        print substr(rest, 1, RLENGTH)
        rest = substr(rest, RLENGTH + 1)
        if (!match(rest, /^, */)) break
        rest = substr(rest, RLENGTH + 1)
    }
}
