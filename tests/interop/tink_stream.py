#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Tink's own AES-GCM-HKDF streaming AEAD, for aesgpu's interop tests.

  tink_stream.py encrypt|decrypt KEY_FILE SEGMENT_BYTES AAD INPUT OUTPUT

KEY_FILE holds the raw main key (16 or 32 bytes). The keyset is built from it as Tink's
AES128_GCM_HKDF_* / AES256_GCM_HKDF_* templates make keys: HKDF-SHA256, a derived key as long as
the main key, the given ciphertext segment size. Exit status 0 on success, 1 when Tink refuses
the ciphertext.
"""
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


def main() -> int:
    direction, key_file, segment_bytes, aad, source, target = sys.argv[1:7]
    streaming_aead.register()
    with open(key_file, "rb") as f:
        key = f.read()
    primitive = keyset_handle(key, int(segment_bytes)).primitive(streaming_aead.StreamingAead)
    with open(source, "rb") as f:
        data = f.read()
    try:
        if direction == "encrypt":
            with open(target, "wb") as out, primitive.new_encrypting_stream(out, aad.encode()) as stream:
                stream.write(data)
        else:
            with open(source, "rb") as ciphertext, primitive.new_decrypting_stream(ciphertext, aad.encode()) as stream:
                plaintext = stream.read()
            with open(target, "wb") as out:
                out.write(plaintext)
    except tink.TinkError as error:
        print(f"tink: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
