# SPDX-License-Identifier: Apache-2.0
# Finds SystemC and TLM and exposes them as one imported target, SystemC::systemc.
# Order: SYSTEMC_HOME (a user's own build), an Accellera CMake package, then pkg-config (Debian's libsystemc-dev).
if(TARGET SystemC::systemc)
  return()
endif()

if(NOT SYSTEMC_HOME AND DEFINED ENV{SYSTEMC_HOME})
  set(SYSTEMC_HOME "$ENV{SYSTEMC_HOME}")
endif()

if(SYSTEMC_HOME)
  find_path(_sc_inc systemc PATHS "${SYSTEMC_HOME}/include" NO_DEFAULT_PATH)
  find_library(_sc_lib systemc PATHS "${SYSTEMC_HOME}/lib" "${SYSTEMC_HOME}/lib64" "${SYSTEMC_HOME}/lib-linux64"
               NO_DEFAULT_PATH)
  if(NOT _sc_inc OR NOT _sc_lib)
    message(FATAL_ERROR "SYSTEMC_HOME=${SYSTEMC_HOME} does not hold include/systemc and lib*/libsystemc")
  endif()
  add_library(SystemC::systemc UNKNOWN IMPORTED GLOBAL)
  set_target_properties(SystemC::systemc PROPERTIES IMPORTED_LOCATION "${_sc_lib}"
                        INTERFACE_INCLUDE_DIRECTORIES "${_sc_inc}")
  message(STATUS "SystemC from SYSTEMC_HOME: ${_sc_lib}")
  return()
endif()

find_package(SystemCLanguage CONFIG QUIET)
if(SystemCLanguage_FOUND AND TARGET SystemC::systemc)
  message(STATUS "SystemC from its CMake package: ${SystemCLanguage_DIR}")
  return()
endif()

find_package(PkgConfig REQUIRED)
pkg_check_modules(SYSTEMC REQUIRED IMPORTED_TARGET GLOBAL systemc tlm)
# a target of its own name (not an alias), so that the installed cmswitch package can refer to it
add_library(SystemC::systemc INTERFACE IMPORTED GLOBAL)
target_link_libraries(SystemC::systemc INTERFACE PkgConfig::SYSTEMC)
message(STATUS "SystemC from pkg-config: ${SYSTEMC_VERSION}")
