# fish completion for aesgpu: install as share/fish/vendor_completions.d/aesgpu.fish
# SPDX-License-Identifier: Apache-2.0
# scripts/checks/check-completions.sh compares the options each condition below gives a command
# ('__aesgpu_using COMMAND...', __aesgpu_no_command for the top level) with `aesgpu COMMAND --help`.

# The command word (the first word after aesgpu that is not an option), if any.
function __aesgpu_command
    for token in (commandline -opc)[2..-1]
        switch $token
            case '-*'
                continue
            case '*'
                echo $token
                return 0
        end
    end
    return 1
end

function __aesgpu_no_command
    not __aesgpu_command >/dev/null
end

# Whether the command is one of the arguments.
function __aesgpu_using
    set -l command (__aesgpu_command)
    or return 1
    contains -- $command $argv
end

# A passphrase source, as openssl's -pass takes it: pass:TEXT, env:VAR, file:PATH, fd:N, stdin.
function __aesgpu_pass
    set -l token (commandline -ct)
    set -l value (string replace -r -- '^(--pass=|-p)' '' $token)
    switch $value
        case 'env:*'
            for name in (set --names --export)
                printf 'env:%s\t%s\n' $name 'environment variable'
            end
        case 'file:*'
            for path in (__fish_complete_path (string replace -- 'file:' '' $value))
                printf 'file:%s\n' $path
            end
        case 'pass:*' 'fd:*'
            return 0
        case '*'
            printf '%s\t%s\n' 'pass:' 'the passphrase itself (visible in ps)' \
                'env:' 'an environment variable holding it' \
                'file:' 'the first line of a file' \
                'fd:' 'the first line read from a file descriptor' \
                stdin 'the first line of standard input'
    end
end

complete -c aesgpu -f

# Top level
complete -c aesgpu -n __aesgpu_no_command -s h -l help -d 'Print help and exit'
complete -c aesgpu -n __aesgpu_no_command -s V -l version -d 'Print the version and exit'
complete -c aesgpu -n __aesgpu_no_command -a encrypt -d 'Encrypt files (or standard input): ECB, CTR or GCM'
complete -c aesgpu -n __aesgpu_no_command -a decrypt -d 'Decrypt files (or standard input), the mode read from each'
complete -c aesgpu -n __aesgpu_no_command -a keygen -d 'Make a random AES key'
complete -c aesgpu -n __aesgpu_no_command -a info -d 'Show the build and devices, or what a file says of itself'
complete -c aesgpu -n __aesgpu_no_command -a bench -d 'Measure both backends'

# encrypt, decrypt
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -F -d 'Input file'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -s h -l help -d 'Print help and exit'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -s o -l output -r -F -d 'Output file (- for standard output)'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -s c -l stdout -d 'Write to standard output'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -s S -l suffix -x -d 'Suffix added/removed (default .aes)'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -s f -l force -d 'Replace an existing output'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -s k -l keep -d 'Keep the input files (the default)'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -l rm -d 'Remove each input once its output is committed'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -l sync -d 'Make each output durable before going on'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -s r -l recursive -d 'Take the regular files under each directory'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -l filelist -r -F -d 'Read input names from a file (- for stdin)'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -l null -d 'File list names end with NUL (find -print0)'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -l output-dir -x -a '(__fish_complete_directories)' -d 'Every output into this directory'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -l output-dir-mirror -x -a '(__fish_complete_directories)' -d 'Every output under this directory, by its path'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -s K -l key -x -d 'Key as 32, 48 or 64 hex digits'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -l key-file -r -F -d 'File holding the key'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -s p -l pass -x -a '(__aesgpu_pass)' -d 'Passphrase source'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -l iter -x -d 'PBKDF2 iterations (default 10000)'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -l md -x -a 'md5 sha1 sha224 sha256 sha384 sha512' -d 'Passphrase key derivation digest (default sha256)'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -l key-bits -x -a '128 192 256' -d 'AES key size, passphrase mode'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -s P -l print-key -d 'Print salt=, key= and iv = and stop'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -l mode -x -a 'ecb ctr cbc gcm' -d 'Cipher mode (encrypt: default ecb; decrypt: read from the file)'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -l iv -x -d 'CTR initial counter, 32 hex digits'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -l segment-size -x -d 'GCM bytes per segment (default 1M)'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -l aad -x -d 'GCM associated data'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -l aad-file -r -F -d 'GCM associated data from a file'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -l no-pad -d 'No PKCS#7 padding (ecb)'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -l backend -x -a 'auto cpu gpu all' -d 'Backend (default auto)'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -l devices -x -a 'all' -d 'GPUs to use: all or N,M'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -l wait-for-gpu -d 'Wait for the GPU to start'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -l streams -x -d 'CUDA streams (default 4)'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -s T -l threads -x -d 'CPU worker threads (0: all)'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -l io-threads -x -d 'Threads reading/writing one file'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -l io -x -a 'auto direct buffered' -d 'How files reach the cipher'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -l chunk-size -x -d 'Bytes per pipeline chunk, e.g. 16M'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -l progress -d 'Always show the progress line'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -l no-progress -d 'Never show the progress line'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -l json -d 'One JSON object per file on stdout'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -s v -l verbose -d 'Log more (-vv: debug)'
complete -c aesgpu -n '__aesgpu_using encrypt decrypt' -s q -l quiet -d 'Only errors on stderr'
complete -c aesgpu -n '__aesgpu_using decrypt' -s t -l test -d 'Decrypt and check, writing nothing'
complete -c aesgpu -n '__aesgpu_using decrypt' -l range -x -d 'gcm: only plaintext bytes OFFSET:LENGTH'
complete -c aesgpu -n '__aesgpu_using decrypt' -l no-pbkdf2 -d 'openssl enc without -pbkdf2: its old key derivation (weak)'

# keygen
complete -c aesgpu -n '__aesgpu_using keygen' -s h -l help -d 'Print help and exit'
complete -c aesgpu -n '__aesgpu_using keygen' -s o -l output -r -F -d 'Write the raw key to a new file (0600)'
complete -c aesgpu -n '__aesgpu_using keygen' -l bits -x -a '128 192 256' -d 'Key size (default 256)'

# info
complete -c aesgpu -n '__aesgpu_using info' -F -d 'File to describe'
complete -c aesgpu -n '__aesgpu_using info' -s h -l help -d 'Print help and exit'
complete -c aesgpu -n '__aesgpu_using info' -l json -d 'One JSON object on stdout'

# bench
complete -c aesgpu -n '__aesgpu_using bench' -s h -l help -d 'Print help and exit'
complete -c aesgpu -n '__aesgpu_using bench' -l backend -x -a 'cpu gpu all' -d 'Backends (default all)'
complete -c aesgpu -n '__aesgpu_using bench' -l size -x -d 'Data per measurement, e.g. 2G'
complete -c aesgpu -n '__aesgpu_using bench' -l key-bits -x -a '128 192 256 all' -d 'Key sizes (default all)'
complete -c aesgpu -n '__aesgpu_using bench' -l mode -x -a 'ecb ctr gcm all' -d 'Modes (default all)'
complete -c aesgpu -n '__aesgpu_using bench' -l direction -x -a 'encrypt decrypt both' -d 'Directions (default both)'
complete -c aesgpu -n '__aesgpu_using bench' -l file -r -F -d 'Also time file to file on this file'
complete -c aesgpu -n '__aesgpu_using bench' -l reps -x -d 'Timed runs per measurement (default 5)'
complete -c aesgpu -n '__aesgpu_using bench' -s T -l threads -x -d 'CPU threads for the all-threads rows'
complete -c aesgpu -n '__aesgpu_using bench' -l devices -x -a 'all' -d 'GPUs for the GPU rows: all or N,M'
complete -c aesgpu -n '__aesgpu_using bench' -l json -d 'One JSON document on stdout'
