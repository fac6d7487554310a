# SPDX-License-Identifier: Apache-2.0
# Profile-guided optimization of the model's libraries (GCC). Two builds: one with CMSWITCH_PROFILE_GENERATE set
# to a directory compiles the libraries with counters, and its cmswitch-sim runs a training set of scenarios
# (scripts/pgo.sh) that leaves the counts there; a build with CMSWITCH_PROFILE_USE set to that directory
# compiles the libraries again with them (which branches are taken, which calls are hot: the compiler inlines
# and lays out code for them). Results do not change (the same source and floating-point rules); speed does
# (bench/NOTES.md). Both empty, the default: an ordinary build.
#
# The counts are found by object file path relative to the build directory (-fprofile-prefix-path), so a build
# in any directory (build/, build-bench/, the Python package's build/python) uses the training build's counts.
# Counts older than a source file are used where they still fit the code and ignored where they do not
# (-Wno-coverage-mismatch); a library file that no training scenario runs has none, and is compiled as without.
# Counts that still fit a function's shape but no longer add up (an inline function of a header changed since the
# training) are smoothed instead of stopping the build with "profile data is not flow-consistent"
# (-fprofile-correction): an edit builds without retraining, only slower code where the counts went stale. With
# fresh counts the flag changes nothing (the same machine code, compared).
set(CMSWITCH_PROFILE_GENERATE "" CACHE PATH "Compile the libraries with profile counters written to this directory")
set(CMSWITCH_PROFILE_USE "" CACHE PATH "Compile the libraries with the profile counts in this directory")

if(CMSWITCH_PROFILE_GENERATE AND CMSWITCH_PROFILE_USE)
  message(FATAL_ERROR "CMSWITCH_PROFILE_GENERATE and CMSWITCH_PROFILE_USE: set at most one of them")
endif()
set(_cmswitch_pgo "")
if(CMSWITCH_PROFILE_GENERATE OR CMSWITCH_PROFILE_USE)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    message(WARNING "profile-guided optimization is set up for GCC only; ${CMAKE_CXX_COMPILER_ID} builds without it")
  elseif(CMSWITCH_SANITIZE)
    message(WARNING "profile-guided optimization is off in a sanitizer build")
  elseif(CMSWITCH_PROFILE_GENERATE)
    set(_cmswitch_pgo generate)
  elseif(NOT IS_DIRECTORY "${CMSWITCH_PROFILE_USE}")
    message(FATAL_ERROR "CMSWITCH_PROFILE_USE: ${CMSWITCH_PROFILE_USE} is not a directory (scripts/pgo.sh makes it)")
  else()
    set(_cmswitch_pgo use)
  endif()
endif()

# The profile flags for one of the model's libraries.
function(cmswitch_profile_guided target)
  if(_cmswitch_pgo STREQUAL "generate")
    target_compile_options(${target} PRIVATE "-fprofile-generate=${CMSWITCH_PROFILE_GENERATE}"
                           "-fprofile-prefix-path=${CMAKE_BINARY_DIR}" -fprofile-update=single)
    target_link_options(${target} INTERFACE -fprofile-generate)   # (libgcov, for whatever links the library)
  elseif(_cmswitch_pgo STREQUAL "use")
    target_compile_options(${target} PRIVATE "-fprofile-use=${CMSWITCH_PROFILE_USE}"
                           "-fprofile-prefix-path=${CMAKE_BINARY_DIR}" -fprofile-partial-training -fprofile-correction
                           -Wno-coverage-mismatch -Wno-missing-profile)
    # a new training (scripts/pgo.sh writes its stamp last) recompiles every file with the new counts, not only
    # the files changed since the last build (counts from elsewhere, without the stamp: as before, no such rule)
    if(EXISTS "${CMSWITCH_PROFILE_USE}/trained")
      get_target_property(_sources ${target} SOURCES)
      set_source_files_properties(${_sources} PROPERTIES OBJECT_DEPENDS "${CMSWITCH_PROFILE_USE}/trained")
    endif()
  endif()
endfunction()
