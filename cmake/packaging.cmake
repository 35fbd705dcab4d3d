# SPDX-License-Identifier: Apache-2.0
# `cpack -G DEB` in a build directory: a Debian package of what `cmake --install` installs. The
# library dependencies (libssl3, libfmt, libspdlog, ...) come from dpkg-shlibdeps, so they are
# those of the machine that built it. A CUDA build is the package aesgpu-cuda, which replaces
# aesgpu and names the GPU architectures it carries code for.
install(FILES LICENSE README.md CHANGELOG.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_VENDOR "aesgpu developers")
set(CPACK_PACKAGE_CONTACT "aesgpu developers <aesgpu@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "AES file encryption on NVIDIA GPUs and on the CPU, compatible with openssl enc")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(aesgpu_description
    "aesgpu encrypts and decrypts files and pipes with AES-128/192/256 (ECB, PKCS#7), byte-compatible\n"
    "with openssl enc, on the CPU with OpenSSL (AES-NI)")
if(AESGPU_HAVE_CUDA)
  set(CPACK_DEBIAN_PACKAGE_NAME aesgpu-cuda)
  set(CPACK_DEBIAN_PACKAGE_PROVIDES aesgpu)
  set(CPACK_DEBIAN_PACKAGE_CONFLICTS aesgpu)
  set(CPACK_DEBIAN_PACKAGE_REPLACES aesgpu)
  list(JOIN CMAKE_CUDA_ARCHITECTURES ", " aesgpu_architectures)
  string(APPEND aesgpu_description
         " and on NVIDIA GPUs with CUDA ${CMAKE_CUDA_COMPILER_VERSION} (CUDA runtime linked in; needs\n"
         "the NVIDIA driver). GPU code for CUDA architectures: ${aesgpu_architectures}.")
else()
  set(CPACK_DEBIAN_PACKAGE_NAME aesgpu)
  string(APPEND aesgpu_description ". This build has no CUDA backend.")
endif()
string(REPLACE ";" "" aesgpu_description "${aesgpu_description}")
set(CPACK_PACKAGE_DESCRIPTION "${aesgpu_description}")
include(CPack)
