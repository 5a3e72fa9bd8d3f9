# The harness version and git commit, baked into ptxbench at configure time (src/core/build_info.h).
# A commit re-runs the configure step (the HEAD and branch files are configure dependencies), so the
# baked commit follows the checkout; "dirty" says the work tree had uncommitted changes then.
set(PTXBENCH_GIT_COMMIT "unknown")
set(PTXBENCH_GIT_DIRTY "false")
# A source tree without its git history (docker/Dockerfile copies no .git) is told them by the
# environment: PTXBENCH_GIT_COMMIT (a hex commit id) and PTXBENCH_GIT_DIRTY (true/false).
if("$ENV{PTXBENCH_GIT_COMMIT}" MATCHES "^[0-9a-f]+$")
  set(PTXBENCH_GIT_COMMIT "$ENV{PTXBENCH_GIT_COMMIT}")
  if("$ENV{PTXBENCH_GIT_DIRTY}" STREQUAL "true")
    set(PTXBENCH_GIT_DIRTY "true")
  endif()
endif()
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse HEAD WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                  OUTPUT_VARIABLE _commit OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _rc ERROR_QUIET)
  if(_rc EQUAL 0)
    set(PTXBENCH_GIT_COMMIT "${_commit}")
    execute_process(COMMAND ${GIT_EXECUTABLE} status --porcelain --untracked-files=no WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                    OUTPUT_VARIABLE _status OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(NOT _status STREQUAL "")
      set(PTXBENCH_GIT_DIRTY "true")
    endif()
    execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --absolute-git-dir WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                    OUTPUT_VARIABLE _git_dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --symbolic-full-name HEAD WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                    OUTPUT_VARIABLE _ref OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --git-common-dir WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                    OUTPUT_VARIABLE _common_dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    get_filename_component(_common_dir "${_common_dir}" ABSOLUTE BASE_DIR ${PROJECT_SOURCE_DIR})
    foreach(_f "${_git_dir}/HEAD" "${_common_dir}/${_ref}" "${_common_dir}/packed-refs")
      if(EXISTS "${_f}")
        set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_f}")
      endif()
    endforeach()
  endif()
endif()
configure_file(${PROJECT_SOURCE_DIR}/src/core/build_info_values.h.in
               ${PROJECT_BINARY_DIR}/generated/core/build_info_values.h @ONLY)
message(STATUS "ptxbench ${PROJECT_VERSION}, commit ${PTXBENCH_GIT_COMMIT} (dirty: ${PTXBENCH_GIT_DIRTY})")
