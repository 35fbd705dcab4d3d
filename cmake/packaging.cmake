# SPDX-License-Identifier: Apache-2.0
# `cpack -G DEB` in a build directory: two Debian packages of what `cmake --install` installs,
# one per install component. aesgpu (component cli) is the command: its library dependencies
# (libssl3, libfmt, libspdlog, ...) come from dpkg-shlibdeps, so they are those of the machine
# that built it. aesgpu-dev (component dev) is the library for programs that link it: libaesgpu.a,
# include/aesgpu/, the CMake package and aesgpu.pc, depending on the -dev packages of what it links.
# A CUDA build's are aesgpu-cuda, which names the GPU architectures it carries code for, and
# aesgpu-cuda-dev; each pair conflicts with and replaces the other, so dpkg -i switches either way.
# cmake/debian-layout.cmake gives the staged files Debian's layout (copyright, changelog.gz,
# gzipped man page, stripped binaries, zsh's vendor-completions).
install(FILES LICENSE README.md CHANGELOG.md docs/usage.md docs/modes.md docs/FORMAT.md docs/library.md docs/packaging.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES LICENSE DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/aesgpu-dev COMPONENT dev)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_VENDOR "aesgpu developers")
set(CPACK_PACKAGE_CONTACT "aesgpu developers <aesgpu@users.noreply.github.com>")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL cli dev)
set(CPACK_DEBIAN_CLI_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_PRE_BUILD_SCRIPTS ${PROJECT_SOURCE_DIR}/cmake/debian-layout.cmake)
set(CPACK_AESGPU_COPYRIGHT ${PROJECT_SOURCE_DIR}/packaging/copyright)
set(CPACK_AESGPU_STRIP ${CMAKE_STRIP})
set(aesgpu_dev_depends "libssl-dev (>= 3.0)")
if(AESGPU_HAVE_IO_URING)
  string(APPEND aesgpu_dev_depends ", liburing-dev")
endif()
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "${aesgpu_dev_depends}")
# Description lines stay under 80 columns (CPack indents each by a space; lintian warns past 80).
# string(CONCAT), not a list, so that a semicolon in the text survives.
string(CONCAT aesgpu_modes
       "aesgpu encrypts and decrypts files and pipes with AES-128/192/256 in ECB,\n"
       "CTR, CBC and GCM modes. ECB, CTR and CBC are byte-compatible with openssl enc\n"
       "(raw keys and -pbkdf2 passphrases). GCM writes Google Tink's streaming\n"
       "AES-GCM-HKDF format (a passphrase adds a header of aesgpu's own) and checks\n"
       "every segment's tag before writing its bytes.\n")
if(AESGPU_HAVE_CUDA)
  set(CPACK_DEBIAN_CLI_PACKAGE_NAME aesgpu-cuda)
  set(CPACK_DEBIAN_CLI_PACKAGE_PROVIDES aesgpu)
  set(CPACK_DEBIAN_CLI_PACKAGE_CONFLICTS aesgpu)
  set(CPACK_DEBIAN_CLI_PACKAGE_REPLACES aesgpu)
  set(CPACK_DEBIAN_CLI_PACKAGE_SUGGESTS nvidia-driver)
  # The CUDA toolkit's runtime (libcudart_static.a) comes from NVIDIA's packages or Debian's
  # nvidia-cuda-toolkit, which name it differently: find_package(aesgpu) finds it (CUDAToolkit).
  set(CPACK_DEBIAN_DEV_PACKAGE_NAME aesgpu-cuda-dev)
  set(CPACK_DEBIAN_DEV_PACKAGE_PROVIDES aesgpu-dev)
  set(CPACK_DEBIAN_DEV_PACKAGE_CONFLICTS aesgpu-dev)
  set(CPACK_DEBIAN_DEV_PACKAGE_REPLACES aesgpu-dev)
  list(JOIN CMAKE_CUDA_ARCHITECTURES " " aesgpu_architectures)
  string(CONCAT CPACK_DEBIAN_CLI_DESCRIPTION
         "AES file encryption on NVIDIA GPUs and the CPU, compatible with openssl enc\n"
         "${aesgpu_modes}"
         "It runs on NVIDIA GPUs with CUDA ${CMAKE_CUDA_COMPILER_VERSION} (the CUDA runtime is\n"
         "linked in; it needs the NVIDIA driver) and on the CPU with OpenSSL (AES-NI).\n"
         "GPU code for the CUDA architectures\n"
         "${aesgpu_architectures}.")
  set(aesgpu_dev_summary "aesgpu's library, AES file encryption on NVIDIA GPUs and the CPU")
else()
  set(CPACK_DEBIAN_CLI_PACKAGE_NAME aesgpu)
  set(CPACK_DEBIAN_CLI_PACKAGE_CONFLICTS aesgpu-cuda)
  set(CPACK_DEBIAN_CLI_PACKAGE_REPLACES aesgpu-cuda)
  set(CPACK_DEBIAN_DEV_PACKAGE_NAME aesgpu-dev)
  set(CPACK_DEBIAN_DEV_PACKAGE_CONFLICTS aesgpu-cuda-dev)
  set(CPACK_DEBIAN_DEV_PACKAGE_REPLACES aesgpu-cuda-dev)
  string(CONCAT CPACK_DEBIAN_CLI_DESCRIPTION
         "AES file encryption on the CPU, compatible with openssl enc\n"
         "${aesgpu_modes}"
         "It runs on the CPU with OpenSSL (AES-NI). This build has no CUDA backend;\n"
         "aesgpu-cuda, built with the CUDA toolkit, also runs on NVIDIA GPUs.")
  set(aesgpu_dev_summary "aesgpu's library, AES file encryption on the CPU")
endif()
string(CONCAT CPACK_DEBIAN_DEV_DESCRIPTION
       "${aesgpu_dev_summary}\n"
       "aesgpu's static library and headers: one call, aesgpu::cipher_file(),\n"
       "encrypts or decrypts a file as the aesgpu command does.\n"
       "find_package(aesgpu) gives aesgpu::aesgpu; pkg-config: aesgpu.")
include(CPack)
