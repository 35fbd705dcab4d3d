# SPDX-License-Identifier: Apache-2.0
# Run by cpack -G DEB (CPACK_PRE_BUILD_SCRIPTS) on each package's staged files before they are
# packed: what Debian's policy asks of a package and `cmake --install` to a prefix does not need.
# Each package's doc directory is /usr/share/doc/PACKAGE and holds the DEP-5 copyright and a
# Debian changelog.gz, but not LICENSE (copyright points to /usr/share/common-licenses); man
# pages are gzipped; binaries are stripped; the zsh completion goes to vendor-completions, on
# Debian's $fpath (/usr/share/zsh/site-functions is not); lintian overrides, with their reasons.
foreach(component IN LISTS CPACK_COMPONENTS_ALL)
  string(TOUPPER ${component} upper)
  set(package ${CPACK_DEBIAN_${upper}_PACKAGE_NAME})
  set(root ${CPACK_TEMPORARY_DIRECTORY}/${component}${CPACK_PACKAGING_INSTALL_PREFIX})
  set(doc ${root}/share/doc/${package})

  # install() names the doc directory after the project (or aesgpu-dev); a CUDA build's
  # packages are aesgpu-cuda and aesgpu-cuda-dev.
  file(GLOB doc_dirs LIST_DIRECTORIES true ${root}/share/doc/*)
  foreach(dir IN LISTS doc_dirs)
    if(NOT dir STREQUAL doc)
      file(RENAME ${dir} ${doc})
    endif()
  endforeach()
  file(MAKE_DIRECTORY ${doc})
  file(REMOVE ${doc}/LICENSE)
  file(COPY_FILE ${CPACK_AESGPU_COPYRIGHT} ${doc}/copyright)

  # A native package (no Debian revision): changelog.gz, in Debian's format, which lintian parses.
  # SOURCE_DATE_EPOCH, when set, fixes the date (string(TIMESTAMP) honours it).
  string(TIMESTAMP date "%a, %d %b %Y %H:%M:%S +0000" UTC)
  file(WRITE ${doc}/changelog
       "aesgpu (${CPACK_PACKAGE_VERSION}) unstable; urgency=medium\n\n"
       "  * aesgpu ${CPACK_PACKAGE_VERSION}, packaged by its own build (cpack -G DEB).\n"
       "    What changed for users is in CHANGELOG.md, installed with the command\n"
       "    in /usr/share/doc/${CPACK_DEBIAN_CLI_PACKAGE_NAME}.\n\n"
       " -- ${CPACK_PACKAGE_CONTACT}  ${date}\n")

  file(GLOB_RECURSE pages ${root}/share/man/man*/*)
  list(FILTER pages EXCLUDE REGEX "\\.gz$")
  foreach(file IN ITEMS ${doc}/changelog ${pages})
    execute_process(COMMAND gzip -9nf ${file} RESULT_VARIABLE failed)
    if(failed)
      message(FATAL_ERROR "gzip -9n ${file} failed")
    endif()
  endforeach()

  # Stripped as dh_strip does: the program of every symbol, the archive of debug information
  # only (a program links it); neither keeps the compiler's .comment and .note sections.
  file(GLOB programs ${root}/bin/*)
  file(GLOB archives ${root}/lib/*.a)
  foreach(file IN LISTS programs archives)
    set(how --strip-all)
    if(file MATCHES "\\.a$")
      set(how --strip-debug --enable-deterministic-archives)
    endif()
    execute_process(COMMAND ${CPACK_AESGPU_STRIP} ${how} --remove-section=.comment --remove-section=.note ${file}
                    RESULT_VARIABLE failed)
    if(failed)
      message(FATAL_ERROR "${CPACK_AESGPU_STRIP} ${how} ${file} failed")
    endif()
  endforeach()

  # Two lintian tags on aesgpu.pc are overridden. It lies in lib/pkgconfig, where `cmake --install`
  # puts it for every prefix (docs/library.md counts on it): cross builds' pkg-config,
  # which looks in lib/<multiarch>, is not a use this package is built for. A CUDA build's links
  # libcudart_static.a where the toolkit has it: NVIDIA's packages put it in /usr/local/cuda.
  set(pc ${root}/lib/pkgconfig/aesgpu.pc)
  if(EXISTS ${pc})
    set(overrides "${package}: pkg-config-unavailable-for-cross-compilation [usr/lib/pkgconfig/aesgpu.pc]\n")
    file(STRINGS ${pc} libs REGEX "^Libs:")
    string(REGEX MATCH "-L/usr/local/[^ ]*" local_dir "${libs}")
    if(local_dir)
      string(APPEND overrides "${package}: pkg-config-bad-directive ${local_dir} [usr/lib/pkgconfig/aesgpu.pc]\n")
    endif()
    file(WRITE ${root}/share/lintian/overrides/${package} "${overrides}")
  endif()

  if(IS_DIRECTORY ${root}/share/zsh/site-functions)
    file(RENAME ${root}/share/zsh/site-functions ${root}/share/zsh/vendor-completions)
  endif()
endforeach()
