# cmake --install: the lock's libraries and headers, the pathlock program, a
# CMake package (find_package(pathlock CONFIG) -> pathlock::pathlock, and the
# component io -> pathlock::io, and testing -> pathlock::testing) and a pkg-config files (pathlock.pc, the core; pathlock-io.pc).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# pathlock::pathlock: the lock with the model types it takes.
add_library(pathlock_library INTERFACE)
set_target_properties(pathlock_library PROPERTIES EXPORT_NAME pathlock)
target_link_libraries(pathlock_library INTERFACE pathlock_impl pathlock_model)
set_target_properties(pathlock_model PROPERTIES EXPORT_NAME model)
set_target_properties(pathlock_impl PROPERTIES EXPORT_NAME impl)

install(TARGETS pathlock_library pathlock_model pathlock_impl EXPORT pathlockTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/model/include/ ${PROJECT_SOURCE_DIR}/impl/include/
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# pathlock::io, the scheme-file reader: its own export set, so that only
# find_package(pathlock COMPONENTS io) asks for nlohmann/json and fmt.
set_target_properties(pathlock_io PROPERTIES EXPORT_NAME io)
install(TARGETS pathlock_io EXPORT pathlockIoTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/impl/io/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# pathlock::testing, the kit for testing any lock (generators, adapters, the
# threaded checker): its own export set, asking for RapidCheck and fmt.
set_target_properties(pathlock_testing PROPERTIES EXPORT_NAME testing)
install(TARGETS pathlock_testing EXPORT pathlockTestingTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# pathlock::etcd, the distributed lock: its own export set, asking for
# libcurl and nlohmann/json.
set_target_properties(pathlock_etcd PROPERTIES EXPORT_NAME etcd)
set_target_properties(pathlock_etcd_protocol PROPERTIES EXPORT_NAME etcd_protocol)
install(TARGETS pathlock_etcd pathlock_etcd_protocol EXPORT pathlockEtcdTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/impl/etcd/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# deterministic.hpp needs the harness's runtime, which is not installed.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/sim/include/pathlock/testing DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pathlock
        PATTERN deterministic.hpp EXCLUDE)
install(FILES ${PROJECT_BINARY_DIR}/generated/pathlock/version.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pathlock)
install(TARGETS pathlock RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

set(config_dir ${CMAKE_INSTALL_LIBDIR}/cmake/pathlock)
install(EXPORT pathlockTargets NAMESPACE pathlock:: DESTINATION ${config_dir})
install(EXPORT pathlockIoTargets NAMESPACE pathlock:: DESTINATION ${config_dir})
install(EXPORT pathlockTestingTargets NAMESPACE pathlock:: DESTINATION ${config_dir})
install(EXPORT pathlockEtcdTargets NAMESPACE pathlock:: DESTINATION ${config_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/pathlockConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/pathlockConfig.cmake INSTALL_DESTINATION ${config_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/pathlockConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/pathlockConfig.cmake ${PROJECT_BINARY_DIR}/pathlockConfigVersion.cmake
        DESTINATION ${config_dir})

# The .pc finds its prefix relative to where it lies, so that
# `cmake --install --prefix` anywhere gives a working file.
file(RELATIVE_PATH pathlock_pc_to_prefix /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
configure_file(${PROJECT_SOURCE_DIR}/cmake/pathlock.pc.in ${PROJECT_BINARY_DIR}/pathlock.pc @ONLY)
configure_file(${PROJECT_SOURCE_DIR}/cmake/pathlock-io.pc.in ${PROJECT_BINARY_DIR}/pathlock-io.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/pathlock.pc ${PROJECT_BINARY_DIR}/pathlock-io.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
