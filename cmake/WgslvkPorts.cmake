# Build-time kernels: each GLSL port is compiled, validated, optimized, reflected and checked
# against its WGSL by wgslvk-translate, and embedded as a generated .cpp in wgslvk_kernels.
#
#   wgslvk_add_port(WGSL <file.wgsl> KERNEL <entry> [ABI_OF <entry>] [SOURCE <x.comp>]
#                   [DEFINES NAME=VALUE ...])
#
# in wgsl_ports/<folder>/CMakeLists.txt; <folder> is KernelInfo::file. The port is
# <folder>/<entry>.comp unless SOURCE names another (a variant built from one .comp with
# DEFINES). ABI_OF marks a native-only variant that is not in the WGSL: it is checked against the
# ABI of that WGSL entry point. #include resolves relative to the including file, then in
# wgsl_ports/common/.
#
#   wgslvk_finish_ports(<target>)
#
# once, after every folder: creates the static library <target> (public include:
# translator/include) with one generated .cpp per kernel and the index behind embedded_kernels()
# (the registry over it is wgslvk_core's: core/README.md).
#
# add_port only records; finish_ports creates the commands, because a custom command's output
# can only be built by a target of the directory that created it. Each command has a depfile
# (the .comp and every file it includes), so editing one .comp or .glsl rebuilds exactly the
# kernels that read it.

set_property(GLOBAL PROPERTY WGSLVK_PORT_COUNT 0)
set(WGSLVK_KERNEL_INCLUDE_DIR ${CMAKE_CURRENT_LIST_DIR}/../translator/include)

function(wgslvk_add_port)
  cmake_parse_arguments(P "" "WGSL;KERNEL;ABI_OF;SOURCE" "DEFINES" ${ARGN})
  if(P_UNPARSED_ARGUMENTS OR NOT P_WGSL OR NOT P_KERNEL)
    message(FATAL_ERROR "wgslvk_add_port(WGSL <file.wgsl> KERNEL <entry> [ABI_OF <entry>] "
                        "[SOURCE <x.comp>] [DEFINES ...]): got '${ARGN}'")
  endif()
  get_filename_component(folder ${CMAKE_CURRENT_SOURCE_DIR} NAME)
  get_filename_component(wgsl ${P_WGSL} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
  if(P_SOURCE)
    get_filename_component(comp ${P_SOURCE} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
  else()
    set(comp ${CMAKE_CURRENT_SOURCE_DIR}/${P_KERNEL}.comp)
  endif()
  foreach(f ${wgsl} ${comp})
    if(NOT EXISTS ${f})
      message(FATAL_ERROR "wgslvk_add_port: ${folder}/${P_KERNEL}: ${f} does not exist")
    endif()
  endforeach()

  # Stable order: folder, WGSL file name, then where the entry point (or the one it shares its
  # ABI with) is declared in the WGSL, then the order of the wgslvk_add_port calls.
  file(READ ${wgsl} text)
  set(entry ${P_KERNEL})
  if(P_ABI_OF)
    set(entry ${P_ABI_OF})
  endif()
  string(FIND "${text}" "fn ${entry}(" pos)
  if(pos LESS 0)
    string(FIND "${text}" "fn ${entry}" pos)
  endif()
  if(pos LESS 0)
    set(pos 99999999)
  endif()
  get_property(n GLOBAL PROPERTY WGSLVK_PORT_COUNT)
  string(LENGTH "00000000${pos}" len)
  math(EXPR start "${len} - 8")
  string(SUBSTRING "00000000${pos}" ${start} 8 padded)
  string(LENGTH "0000${n}" len)
  math(EXPR start "${len} - 4")
  string(SUBSTRING "0000${n}" ${start} 4 padded_n)

  set(id "${folder}__${P_KERNEL}")
  foreach(key FOLDER WGSL COMP KERNEL ABI_OF DEFINES)
    set_property(GLOBAL PROPERTY WGSLVK_PORT_${n}_${key} "")
  endforeach()
  set_property(GLOBAL PROPERTY WGSLVK_PORT_${n}_FOLDER ${folder})
  set_property(GLOBAL PROPERTY WGSLVK_PORT_${n}_WGSL ${wgsl})
  set_property(GLOBAL PROPERTY WGSLVK_PORT_${n}_COMP ${comp})
  set_property(GLOBAL PROPERTY WGSLVK_PORT_${n}_KERNEL ${P_KERNEL})
  set_property(GLOBAL PROPERTY WGSLVK_PORT_${n}_ABI_OF "${P_ABI_OF}")
  set_property(GLOBAL PROPERTY WGSLVK_PORT_${n}_DEFINES "${P_DEFINES}")
  get_property(ids GLOBAL PROPERTY WGSLVK_PORT_IDS)
  if("${id}" IN_LIST ids)
    message(FATAL_ERROR "wgslvk_add_port: ${folder}/${P_KERNEL} is added twice")
  endif()
  set_property(GLOBAL APPEND PROPERTY WGSLVK_PORT_IDS ${id})
  get_filename_component(wgsl_name ${wgsl} NAME)
  set_property(GLOBAL APPEND PROPERTY WGSLVK_PORT_ORDER "${folder}|${wgsl_name}|${padded}|${padded_n}|${n}")
  math(EXPR n "${n} + 1")
  set_property(GLOBAL PROPERTY WGSLVK_PORT_COUNT ${n})
endfunction()

function(wgslvk_finish_ports target)
  set(common_dir ${CMAKE_CURRENT_SOURCE_DIR}/common)
  set(gen_dir ${CMAKE_CURRENT_BINARY_DIR}/generated)
  get_property(order GLOBAL PROPERTY WGSLVK_PORT_ORDER)
  if(order)
    list(SORT order)
  endif()

  set(sources "")
  set(decls "")
  set(refs "")
  foreach(entry ${order})
    string(REGEX REPLACE ".*\\|" "" n "${entry}")
    foreach(key FOLDER WGSL COMP KERNEL ABI_OF DEFINES)
      get_property(${key} GLOBAL PROPERTY WGSLVK_PORT_${n}_${key})
    endforeach()
    set(id "${FOLDER}__${KERNEL}")
    string(REGEX REPLACE "[^A-Za-z0-9]" "_" sym "${FOLDER}")
    string(REGEX REPLACE "[^A-Za-z0-9]" "_" sym_kernel "${KERNEL}")
    set(sym "${sym}__${sym_kernel}")  # as wgslvk-translate names it
    set(out ${gen_dir}/${FOLDER}/${KERNEL}.cpp)
    # The typed header wgslvk/kernels/<folder>/<kernel>.hpp (translator/README.md).
    set(header ${gen_dir}/include/wgslvk/kernels/${FOLDER}/${KERNEL}.hpp)
    set(args --file ${FOLDER} --kernel ${KERNEL} --comp ${COMP} --wgsl ${WGSL}
             --include-dir ${common_dir} --source-root ${PROJECT_SOURCE_DIR}
             --out ${out} --depfile ${gen_dir}/${FOLDER}/${KERNEL}.d
             --spvasm ${gen_dir}/${FOLDER}/${KERNEL}.spvasm --header ${header})
    if(ABI_OF)
      list(APPEND args --abi-of ${ABI_OF})
    endif()
    foreach(d ${DEFINES})
      list(APPEND args --define ${d})
    endforeach()
    add_custom_command(
      OUTPUT ${out} ${header}
      BYPRODUCTS ${gen_dir}/${FOLDER}/${KERNEL}.spvasm
      COMMAND wgslvk-translate ${args}
      DEPENDS wgslvk-translate ${COMP} ${WGSL}
      DEPFILE ${gen_dir}/${FOLDER}/${KERNEL}.d
      COMMENT "wgslvk: ${FOLDER}/${KERNEL} (GLSL -> SPIR-V, ABI check against ${WGSL})"
      VERBATIM)
    list(APPEND sources ${out})
    string(APPEND decls "extern const KernelInfo kernel_${sym};\n")
    string(APPEND refs "    &kernel_${sym},\n")
  endforeach()

  if(refs STREQUAL "")
    set(table "std::span<const KernelInfo* const> embedded_kernels() { return {}; }\n")
  else()
    set(table "namespace {\nconst KernelInfo* const kAll[] = {\n${refs}};\n}  // namespace\n\n"
              "std::span<const KernelInfo* const> embedded_kernels() { return kAll; }\n")
  endif()
  file(CONFIGURE OUTPUT ${gen_dir}/kernel_index.cpp CONTENT
"// Generated by wgslvk_finish_ports (cmake/WgslvkPorts.cmake). Do not edit.
#include \"wgslvk/kernel.hpp\"

namespace wgslvk {
namespace generated {
@decls@}  // namespace generated
using namespace generated;

@table@}  // namespace wgslvk
" @ONLY)
  list(APPEND sources ${gen_dir}/kernel_index.cpp)

  add_library(${target} STATIC ${sources})
  # Not in unity builds: the generated sources of one family's kernels each define the family's
  # shared WGSL text (`inline constexpr char wgsl_<family>__<file>[]`), a redefinition in one TU.
  set_target_properties(${target} PROPERTIES UNITY_BUILD OFF)
  target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${WGSLVK_KERNEL_INCLUDE_DIR}>
                                              $<BUILD_INTERFACE:${gen_dir}/include>
                                              $<INSTALL_INTERFACE:include>)
endfunction()
