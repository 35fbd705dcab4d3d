#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Tink's own AES-GCM-HKDF streaming AEAD, for aesgpu's interop tests.

  tink_stream.py encrypt|decrypt KEY_FILE SEGMENT_BYTES AAD INPUT OUTPUT

KEY_FILE holds the raw main key (16 or 32 bytes). The keyset is built from it as Tink's
AES128_GCM_HKDF_* / AES256_GCM_HKDF_* templates make keys: HKDF-SHA256, a derived key as long as
the main key, the given ciphertext segment size. AAD is the associated data as text, or @PATH for
the bytes of a file. Exit status 0 on success, 1 when Tink refuses the ciphertext.

KEY_FILE may instead be pass:TEXT[:BITS], for aesgpu's passphrase files (docs/FORMAT.md): a 32-byte
header (AESGPU, version 1, scrypt log2 N, r, p, key size, segment size, salt), the main key
scrypt(TEXT, salt) from Python's hashlib, and the header in front of AAD as the Tink stream's
associated data. Decrypting reads the header's parameters; encrypting writes N = 2^16, r = 8,
p = 1, BITS (default 256) and SEGMENT_BYTES.
"""
import hashlib
import os
import struct
import sys

import tink
from tink import cleartext_keyset_handle, streaming_aead
from tink.proto import aes_gcm_hkdf_streaming_pb2, common_pb2, tink_pb2


def keyset_handle(key: bytes, segment_bytes: int):
    key_proto = aes_gcm_hkdf_streaming_pb2.AesGcmHkdfStreamingKey(
        version=0,
        key_value=key,
        params=aes_gcm_hkdf_streaming_pb2.AesGcmHkdfStreamingParams(
            ciphertext_segment_size=segment_bytes,
            derived_key_size=len(key),
            hkdf_hash_type=common_pb2.SHA256,
        ),
    )
    keyset = tink_pb2.Keyset(
        primary_key_id=1,
        key=[
            tink_pb2.Keyset.Key(
                key_data=tink_pb2.KeyData(
                    type_url="type.googleapis.com/google.crypto.tink.AesGcmHkdfStreamingKey",
                    value=key_proto.SerializeToString(),
                    key_material_type=tink_pb2.KeyData.SYMMETRIC,
                ),
                status=tink_pb2.ENABLED,
                key_id=1,
                output_prefix_type=tink_pb2.RAW,
            )
        ],
    )
    return cleartext_keyset_handle.from_keyset(keyset)


PASSPHRASE_HEADER = struct.Struct(">6sBBBBBBI16s")  # docs/FORMAT.md


def scrypt_key(passphrase: bytes, salt: bytes, log2_n: int, r: int, p: int, key_bytes: int) -> bytes:
    return hashlib.scrypt(passphrase, salt=salt, n=1 << log2_n, r=r, p=p, maxmem=(1 << 30) + (1 << 20), dklen=key_bytes)


def main() -> int:
    direction, key_file, segment_bytes, aad, source, target = sys.argv[1:7]
    streaming_aead.register()
    if aad.startswith("@"):
        with open(aad[1:], "rb") as f:
            associated_data = f.read()
    else:
        associated_data = aad.encode()
    segment_bytes = int(segment_bytes)
    with open(source, "rb") as f:
        data = f.read()
    header = b""
    if key_file.startswith("pass:"):
        passphrase, _, bits = key_file[5:].partition(":")
        if direction == "encrypt":
            key_bytes = int(bits or 256) // 8
            header = PASSPHRASE_HEADER.pack(b"AESGPU", 1, 1, 16, 8, 1, key_bytes, segment_bytes, os.urandom(16))
        else:
            header, data = data[: PASSPHRASE_HEADER.size], data[PASSPHRASE_HEADER.size :]
        magic, version, kdf, log2_n, r, p, key_bytes, segment_bytes, salt = PASSPHRASE_HEADER.unpack(header)
        if magic != b"AESGPU" or version != 1 or kdf != 1:
            print("tink_stream.py: not an aesgpu passphrase header", file=sys.stderr)
            return 1
        key = scrypt_key(passphrase.encode(), salt, log2_n, r, p, key_bytes)
        associated_data = header + associated_data
    else:
        with open(key_file, "rb") as f:
            key = f.read()
    primitive = keyset_handle(key, segment_bytes).primitive(streaming_aead.StreamingAead)
    try:
        if direction == "encrypt":
            with open(target, "wb") as out:
                out.write(header)
                with primitive.new_encrypting_stream(out, associated_data) as stream:
                    stream.write(data)
        else:
            with open(source, "rb") as ciphertext:
                ciphertext.seek(len(header))
                with primitive.new_decrypting_stream(ciphertext, associated_data) as stream:
                    plaintext = stream.read()
            with open(target, "wb") as out:
                out.write(plaintext)
    except tink.TinkError as error:
        print(f"tink: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
