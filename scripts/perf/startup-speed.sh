#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One process per small file, as the xargs and parallel recipes run aesgpu: each aesgpu binary given
# against `openssl enc` on the same task, interleaved in one loop (each round runs every command
# once, in an order shuffled per round, each right after an untimed run of itself, as in an xargs
# loop), timed from fork to wait by a small C harness. Prints the median, p10 and p90 in ms per
# command and scenario, and the median CPU time. Compare only rows of one scenario.
# Usage: scripts/perf/startup-speed.sh [-r ROUNDS] [-s SCENARIOS] NAME=AESGPU_BINARY[:EXTRA ARGS] ...
#   e.g. scripts/perf/startup-speed.sh new=build/aesgpu old=/tmp/old/aesgpu gpu=build/aesgpu:--backend cpu
# Scenarios (default all): enc4k (a 4 KiB file, -f over the output), fresh4k (a new output each
# run), enc0 (an empty file), pass4k (a passphrase, PBKDF2 of 10000 iterations), dec4k.
set -euo pipefail
rounds=300 scenarios="enc4k fresh4k enc0 pass4k dec4k"
while getopts r:s: flag; do
    case $flag in
        r) rounds=$OPTARG ;;
        s) scenarios=$OPTARG ;;
        *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { sed -n '3,12p' "$0"; exit 2; }
command -v cc >/dev/null && command -v openssl >/dev/null || { echo "needs cc and openssl" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/aesgpu-startup-XXXXXX")
trap 'rm -rf "$work"' EXIT
cat >"$work/harness.c" <<'C'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
typedef struct { char *name; char **argv; double *ms, *cpu; int failed; } Command;
static double now_ms(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
static int by_value(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
static double at(const double *sorted, int n, double q) { return sorted[(int)(q * (n - 1) + 0.5)]; }
/* One run: fork, exec with the standard streams on /dev/null, wait; the output named in
   FRESH is removed first (untimed). */
static double run(Command *c, double *cpu) {
    const char *fresh = getenv("FRESH");
    if (fresh && *fresh) unlink(fresh);
    const int null = open("/dev/null", O_RDWR);
    const double start = now_ms();
    const pid_t child = fork();
    if (child == 0) { dup2(null, 0); dup2(null, 1); dup2(null, 2); execv(c->argv[0], c->argv); _exit(127); }
    int status = 0; struct rusage usage; wait4(child, &status, 0, &usage);
    const double ms = now_ms() - start;
    close(null);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) c->failed++;
    *cpu = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e3 + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e3;
    return ms;
}
int main(int argc, char **argv) {
    const int rounds = atoi(argv[1]);
    Command commands[16]; int n = 0;
    for (int i = 2; i < argc && n < 16; n++) {   /* NAME PROGRAM ARGS... ';' ... */
        commands[n] = (Command){argv[i++], &argv[i], calloc(rounds, sizeof(double)), calloc(rounds, sizeof(double)), 0};
        while (i < argc && strcmp(argv[i], ";")) i++;
        if (i < argc) argv[i++] = NULL;
    }
    srand(42);
    int order[16]; double ignored;
    for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < n; k++) order[k] = k;
        for (int k = n - 1; k > 0; k--) { int j = rand() % (k + 1), t = order[k]; order[k] = order[j]; order[j] = t; }
        for (int k = 0; k < n; k++) { Command *c = &commands[order[k]]; run(c, &ignored); c->ms[r] = run(c, &c->cpu[r]); }
    }
    for (int k = 0; k < n; k++) {
        Command *c = &commands[k];
        qsort(c->ms, rounds, sizeof(double), by_value); qsort(c->cpu, rounds, sizeof(double), by_value);
        printf("  %-24s median %7.3f ms  p10 %7.3f  p90 %7.3f  cpu %6.3f ms%s\n", c->name, at(c->ms, rounds, .5),
               at(c->ms, rounds, .1), at(c->ms, rounds, .9), at(c->cpu, rounds, .5), c->failed ? "  (runs failed!)" : "");
    }
    return 0;
}
C
cc -O2 -o "$work/harness" "$work/harness.c"
cd "$work"
head -c 4096 /dev/urandom >in4k
: >in0
key=$(openssl rand -hex 32)
openssl enc -aes-256-ecb -K "$key" -in in4k -out enc4k.aes
for scenario in $scenarios; do
    fresh=""
    case $scenario in
        enc4k) ours="encrypt -q -f -K $key -o $work/out in4k" theirs="enc -aes-256-ecb -K $key -in in4k -out $work/out" ;;
        fresh4k) ours="encrypt -q -K $key -o $work/out in4k" theirs="enc -aes-256-ecb -K $key -in in4k -out $work/out"
                 fresh=$work/out ;;
        enc0) ours="encrypt -q -f -K $key -o $work/out in0" theirs="enc -aes-256-ecb -K $key -in in0 -out $work/out" ;;
        pass4k) ours="encrypt -q -f -p pass:secret -o $work/out in4k"
                theirs="enc -aes-256-ecb -pbkdf2 -pass pass:secret -in in4k -out $work/out" ;;
        dec4k) ours="decrypt -q -f --mode ecb -K $key -o $work/out enc4k.aes"
               theirs="enc -d -aes-256-ecb -K $key -in enc4k.aes -out $work/out" ;;
        *) echo "unknown scenario $scenario" >&2; exit 2 ;;
    esac
    arguments=()
    for spec in "$@"; do
        name=${spec%%=*} rest=${spec#*=}
        binary=${rest%%:*} extra=""
        [[ $rest == *:* ]] && extra=${rest#*:}
        # shellcheck disable=SC2206 # the arguments split on purpose
        arguments+=("$name" "$(realpath "$OLDPWD/$binary" 2>/dev/null || realpath "$binary")" $ours $extra ";")
    done
    # shellcheck disable=SC2206
    arguments+=(openssl "$(command -v openssl)" $theirs)
    echo "$scenario ($rounds rounds each):"
    FRESH=$fresh ./harness "$rounds" "${arguments[@]}"
done
