# A kernel family is one folder, wgsl_ports/<family>/, and one call in its CMakeLists.txt:
#
#   wgslvk_add_port(WGSL 04_matmul.wgsl KERNEL matmul_naive)     # one line per entry point
#   wgslvk_add_family(matmul
#     REFERENCE reference.cpp    # CPU references, no Vulkan: library wgslvk_matmul_ref
#     HOST      matmul.cpp       # host API on the runtime: library wgslvk_matmul (optional)
#     CASES     cases.cpp        # golden generators (WGSLVK_REGISTER_GENERATORS)
#     BENCH     bench.cpp)       # benchmark sweeps (WGSLVK_REGISTER_BENCH)
#
# Include paths: "matmul/reference.hpp" (wgsl_ports/ is public), "wgslvk/numeric.hpp" (wgslvk_core).
# CASES and BENCH register themselves at static-initialization time; every family's registrations
# are linked whole-archive into wgslvk_families, which the CLI and the tests link. No file outside
# the folder names the family (tests/<family>/ holds its GoogleTest suite).

set_property(GLOBAL PROPERTY WGSLVK_FAMILIES "")
set_property(GLOBAL PROPERTY WGSLVK_FAMILY_NAMES "")

function(wgslvk_add_family name)
  cmake_parse_arguments(F "" "" "REFERENCE;HOST;CASES;BENCH;LIBS" ${ARGN})
  if(F_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "wgslvk_add_family(${name}): unknown arguments '${F_UNPARSED_ARGUMENTS}'")
  endif()
  if(F_REFERENCE)
    # The references need only wgslvk_core (numeric.hpp): no Vulkan, no kernels.
    # Installed: the family's headers under include/wgslvk/families/<family>/ (WgslvkInstall).
    add_library(wgslvk_${name}_ref STATIC ${F_REFERENCE})
    target_include_directories(wgslvk_${name}_ref PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/wgsl_ports>
                               $<INSTALL_INTERFACE:include/wgslvk/families>)
    target_link_libraries(wgslvk_${name}_ref PUBLIC wgslvk_core)
  else()
    add_library(wgslvk_${name}_ref INTERFACE)
    target_include_directories(wgslvk_${name}_ref INTERFACE $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/wgsl_ports>
                               $<INSTALL_INTERFACE:include/wgslvk/families>)
    target_link_libraries(wgslvk_${name}_ref INTERFACE wgslvk_core)
  endif()
  set_property(GLOBAL APPEND PROPERTY WGSLVK_FAMILY_NAMES ${name})
  if(F_HOST)
    add_library(wgslvk_${name} STATIC ${F_HOST})
    target_link_libraries(wgslvk_${name} PUBLIC wgslvk_${name}_ref wgslvk_runtime wgslvk_kernels
                          ${F_LIBS})
  else()
    add_library(wgslvk_${name} INTERFACE)
    target_link_libraries(wgslvk_${name} INTERFACE wgslvk_${name}_ref wgslvk_runtime wgslvk_kernels
                          ${F_LIBS})
  endif()
  if(F_CASES OR F_BENCH)
    add_library(wgslvk_${name}_plugins STATIC ${F_CASES} ${F_BENCH})
    target_link_libraries(wgslvk_${name}_plugins PUBLIC wgslvk_${name} wgslvk_validate wgslvk_bench)
    set_property(GLOBAL APPEND PROPERTY WGSLVK_FAMILIES wgslvk_${name}_plugins)
  endif()
endfunction()

# An app (apps/<name>/, e.g. the GPT trainer) registers a library of static registrations that
# need the CLI (its commands): wgslvk_register_plugins(<target>). Only the CLI links them.
set_property(GLOBAL PROPERTY WGSLVK_APP_PLUGINS "")
function(wgslvk_register_plugins target)
  set_property(GLOBAL APPEND PROPERTY WGSLVK_APP_PLUGINS ${target})
endfunction()

# Once, after every family and app: wgslvk_families (the families' generators and bench sections,
# for the CLI and the tests) and wgslvk_apps (the apps' commands, for the CLI), whole-archive.
function(wgslvk_finish_families)
  foreach(kind families apps)
    if(kind STREQUAL "families")
      get_property(plugins GLOBAL PROPERTY WGSLVK_FAMILIES)
    else()
      get_property(plugins GLOBAL PROPERTY WGSLVK_APP_PLUGINS)
    endif()
    add_library(wgslvk_${kind} INTERFACE)
    foreach(p ${plugins})
      target_link_libraries(wgslvk_${kind} INTERFACE "$<LINK_LIBRARY:WHOLE_ARCHIVE,${p}>")
    endforeach()
  endforeach()
endfunction()
