# SPDX-License-Identifier: Apache-2.0
# `cpack -G DEB` in a build directory: two Debian packages of what `cmake --install` installs,
# one per install component. aesgpu (component cli) is the command: its library dependencies
# (libssl3, libfmt, libspdlog, ...) come from dpkg-shlibdeps, so they are those of the machine
# that built it. aesgpu-dev (component dev) is the library for programs that link it: libaesgpu.a,
# include/aesgpu/, the CMake package and aesgpu.pc, depending on the -dev packages of what it links.
# A CUDA build's are aesgpu-cuda, which replaces aesgpu and names the GPU architectures it carries
# code for, and aesgpu-cuda-dev.
install(FILES LICENSE README.md CHANGELOG.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES LICENSE DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/aesgpu-dev COMPONENT dev)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_VENDOR "aesgpu developers")
set(CPACK_PACKAGE_CONTACT "aesgpu developers <aesgpu@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "AES file encryption on NVIDIA GPUs and on the CPU, compatible with openssl enc")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL cli dev)
set(CPACK_DEBIAN_CLI_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(aesgpu_dev_depends "libssl-dev (>= 3.0)")
if(AESGPU_HAVE_IO_URING)
  string(APPEND aesgpu_dev_depends ", liburing-dev")
endif()
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "${aesgpu_dev_depends}")
set(aesgpu_description
    "aesgpu encrypts and decrypts files and pipes with AES-128/192/256 (ECB, PKCS#7), byte-compatible\n"
    "with openssl enc, on the CPU with OpenSSL (AES-NI)")
if(AESGPU_HAVE_CUDA)
  set(CPACK_DEBIAN_CLI_PACKAGE_NAME aesgpu-cuda)
  set(CPACK_DEBIAN_CLI_PACKAGE_PROVIDES aesgpu)
  set(CPACK_DEBIAN_CLI_PACKAGE_CONFLICTS aesgpu)
  set(CPACK_DEBIAN_CLI_PACKAGE_REPLACES aesgpu)
  # The CUDA toolkit's runtime (libcudart_static.a) comes from NVIDIA's packages or Debian's
  # nvidia-cuda-toolkit, which name it differently: find_package(aesgpu) finds it (CUDAToolkit).
  set(CPACK_DEBIAN_DEV_PACKAGE_NAME aesgpu-cuda-dev)
  set(CPACK_DEBIAN_DEV_PACKAGE_PROVIDES aesgpu-dev)
  set(CPACK_DEBIAN_DEV_PACKAGE_CONFLICTS aesgpu-dev)
  set(CPACK_DEBIAN_DEV_PACKAGE_REPLACES aesgpu-dev)
  list(JOIN CMAKE_CUDA_ARCHITECTURES ", " aesgpu_architectures)
  string(APPEND aesgpu_description
         " and on NVIDIA GPUs with CUDA ${CMAKE_CUDA_COMPILER_VERSION} (CUDA runtime linked in; needs\n"
         "the NVIDIA driver). GPU code for CUDA architectures: ${aesgpu_architectures}.")
else()
  set(CPACK_DEBIAN_CLI_PACKAGE_NAME aesgpu)
  set(CPACK_DEBIAN_DEV_PACKAGE_NAME aesgpu-dev)
  string(APPEND aesgpu_description ". This build has no CUDA backend.")
endif()
string(REPLACE ";" "" aesgpu_description "${aesgpu_description}")
set(CPACK_COMPONENT_CLI_DESCRIPTION "${aesgpu_description}")
set(CPACK_COMPONENT_DEV_DESCRIPTION
    "aesgpu's static library and headers: one call, aesgpu::cipher_file(), encrypts or decrypts a\n"
    "file as the aesgpu command does. find_package(aesgpu) gives aesgpu::aesgpu; pkg-config: aesgpu.")
string(REPLACE ";" "" CPACK_COMPONENT_DEV_DESCRIPTION "${CPACK_COMPONENT_DEV_DESCRIPTION}")
include(CPack)
