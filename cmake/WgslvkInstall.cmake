# `cmake --install`: headers (the generated typed kernel headers too), the framework libraries
# (exported as wgslvk::<name>), each family's host API and CPU references (wgslvk::<family>,
# wgslvk::<family>_ref; headers under include/wgslvk/families/<family>/, included as
# "<family>/x.hpp"), the CLI, and a package config
# that finds the libraries' own dependencies (examples/out_of_tree uses it).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
set(exported core runtime wgsl translator kernels validate bench)
get_property(families GLOBAL PROPERTY WGSLVK_FAMILY_NAMES)
foreach(f ${families})
  list(APPEND exported ${f} ${f}_ref)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/wgsl_ports/${f}/
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/wgslvk/families/${f} FILES_MATCHING PATTERN "*.hpp")
endforeach()
foreach(n ${exported})
  set_target_properties(wgslvk_${n} PROPERTIES EXPORT_NAME ${n})
endforeach()
list(TRANSFORM exported PREPEND wgslvk_ OUTPUT_VARIABLE exported_targets)
install(TARGETS ${exported_targets} EXPORT wgslvkTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS wgslvk RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
foreach(dir core/include runtime/include translator/include translator/wgsl/include validate/include bench/include)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()
# The typed kernel headers the build generates (wgslvk/kernels/<file>/<entry>.hpp,
# translator/README.md), for code that binds an embedded kernel by its named slots.
get_target_property(kernels_binary_dir wgslvk_kernels BINARY_DIR)
install(DIRECTORY ${kernels_binary_dir}/generated/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp")
# The shared GLSL of the shipped ports (flat_id, is_finite), for ports users write.
install(FILES ${PROJECT_SOURCE_DIR}/wgsl_ports/common/wgsl.glsl
        DESTINATION ${CMAKE_INSTALL_DATADIR}/wgslvk/glsl)
install(EXPORT wgslvkTargets NAMESPACE wgslvk:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/wgslvk)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/wgslvkConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/wgslvkConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/wgslvk)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/wgslvkConfig.cmake DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/wgslvk)
