# What `cmake --install` puts where, the CMake package and pkg-config file
# that let another project use the libraries, and the Debian packages of
# `cpack -G DEB`. Included at the end of the top-level CMakeLists.txt.
#
# Two install components:
#  - Runtime: the locksim command (<bindir>/locksim) and the virtual-clock
#    shim it preloads into redis-server (<libdir>/locksim/, found from the
#    command's own location: tools/server/redis_server.h). The script packs
#    are compiled in (impl/builtin_packs.h): nothing is read from the source
#    tree.
#  - Development: the static libraries, their headers under
#    <includedir>/locksim/ (included as "impl/realtime/redis_lock_client.h"),
#    find_package(locksim) (<libdir>/cmake/locksim/) and locksim.pc.
#
# What is installed is stripped: the command and the shim of their symbols
# and debug sections, the static libraries of their debug sections (together
# over 500 MB otherwise), with `cmake --install` as with `--strip` and in
# the Debian packages. -DLOCKSIM_INSTALL_DEBUG=ON installs them as built
# (with the build type's debug information) for a debugger. For an installed
# build, configure with -DCMAKE_BUILD_TYPE=Release (deploy/Dockerfile does);
# the checkout's default, RelWithDebInfo, is for developing.
include(CMakePackageConfigHelpers)

option(LOCKSIM_INSTALL_DEBUG "Install the command, the shim and the static libraries with their debug information"
       OFF)
if(LOCKSIM_INSTALL_DEBUG)
  set(_locksim_strip_if "CMAKE_INSTALL_DO_STRIP")  # only when asked with --strip
else()
  set(_locksim_strip_if "1")
endif()

set(LOCKSIM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/locksim)

# --- Runtime -----------------------------------------------------------------
install(TARGETS locksim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT Runtime)
install(TARGETS locksim_vclock LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/locksim COMPONENT Runtime)
install(CODE "if(${_locksim_strip_if})
  execute_process(COMMAND \"${CMAKE_STRIP}\" --strip-unneeded
    \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/$<TARGET_FILE_NAME:locksim>\"
    \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/locksim/$<TARGET_FILE_NAME:locksim_vclock>\"
    COMMAND_ERROR_IS_FATAL ANY)
endif()" COMPONENT Runtime)

# --- Development -------------------------------------------------------------
# The libraries another program links, each exported as locksim::<name>:
#   redis                the mini Redis: store, commands, the Lua host
#   model, traces        our scripts' vocabulary and reference model; trace events and files
#   impl, realtime       the lock client and script packs; the client on real threads and a live Redis
#   sim, properties      the simulator; the checkers
#   search               the searches over runs: campaigns, shrinking, explore, guided campaigns
#   reports              timelines and campaign reports
# and locksim::client, the lock library (impl + realtime, with what they need).
set(_locksim_exported locksim_redis locksim_model locksim_traces locksim_impl locksim_realtime locksim_sim
                      locksim_properties locksim_search locksim_reports)
foreach(_lib IN LISTS _locksim_exported)
  string(REGEX REPLACE "^locksim_" "" _export_name ${_lib})
  set_target_properties(${_lib} PROPERTIES EXPORT_NAME ${_export_name})
endforeach()
add_library(locksim_client INTERFACE)
target_link_libraries(locksim_client INTERFACE locksim_realtime)
set_target_properties(locksim_client PROPERTIES EXPORT_NAME client)
add_library(locksim::client ALIAS locksim_client)  # the same name in the build tree (examples/)

install(TARGETS ${_locksim_exported} locksim_client EXPORT locksimTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT Development)
# `cmake --install --strip` (and cpack, CPACK_STRIP_FILES) strips only the
# programs: the static libraries lose their debug sections here (about 200 MB),
# unless LOCKSIM_INSTALL_DEBUG.
foreach(_lib IN LISTS _locksim_exported)
  install(CODE "if(${_locksim_strip_if})
    execute_process(COMMAND \"${CMAKE_STRIP}\" --strip-debug
      \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/$<TARGET_FILE_NAME:${_lib}>\"
      COMMAND_ERROR_IS_FATAL ANY)
  endif()" COMPONENT Development)
endforeach()
install(EXPORT locksimTargets NAMESPACE locksim:: DESTINATION ${LOCKSIM_CMAKE_DIR} COMPONENT Development)

# Public headers: every header of the exported libraries' folders (a header of
# one may include any other of them), keeping the source tree's layout.
foreach(_dir redis model traces impl impl/realtime sim properties search reports)
  file(GLOB _headers CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/${_dir}/*.h)
  install(FILES ${_headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/locksim/${_dir} COMPONENT Development)
endforeach()

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/locksimConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/deploy/locksimConfig.cmake
                              INSTALL_DESTINATION ${LOCKSIM_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/deploy/locksimConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/deploy/locksimConfig.cmake ${CMAKE_BINARY_DIR}/deploy/locksimConfigVersion.cmake
        DESTINATION ${LOCKSIM_CMAKE_DIR} COMPONENT Development)

# pkg-config: the lock library (locksim::client). Its prefix is found from
# the .pc file's own location, so an install under any --prefix is right.
file(RELATIVE_PATH LOCKSIM_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" LOCKSIM_PC_TO_PREFIX "${LOCKSIM_PC_TO_PREFIX}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/locksim.pc.in ${CMAKE_BINARY_DIR}/deploy/locksim.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/deploy/locksim.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
        COMPONENT Development)

# --- Debian packages (cpack -G DEB in the build dir) ---------------------------
# locksim (Runtime) and locksim-dev (Development). The runtime package's
# Depends come from what the binaries link (dpkg-shlibdeps: libhiredis,
# liblua5.1-0, libsimdjson, libjemalloc, libstdc++, libc); redis-server (live backend,
# doctor) and graphviz (timeline pictures) are Recommends: the model backend
# runs without them, and apt installs them by default.
set(CPACK_PACKAGE_NAME locksim)
set(CPACK_PACKAGE_VENDOR "locksim")
set(CPACK_PACKAGE_CONTACT "locksim developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Deterministic virtual-time verification harness for Redis locks")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
if(NOT LOCKSIM_INSTALL_DEBUG)
  set(CPACK_STRIP_FILES ON)  # the command and the shim; debug info stays in the build tree
endif()
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL Runtime Development)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME locksim)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_RECOMMENDS "redis-server, graphviz")
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_NAME locksim-dev)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_DEPENDS
    "libhiredis-dev, liblua5.1-0-dev, lua-bitop-dev, lua-cjson-dev, libsimdjson-dev, nlohmann-json3-dev, librapidcheck-dev, pkg-config")
# One string each (a line break, then the next line): the package's long description.
set(CPACK_COMPONENT_RUNTIME_DESCRIPTION "The locksim command: campaigns of seeded scenarios, many simulated clients in
virtual time with faults, against a model of the lock scripts or a live
redis-server whose clock it drives; checkers of mutual exclusion, FIFO,
watchdog, liveness and reentrancy; traces that replay exactly; timelines and
campaign reports. The lock scripts are built in.")
set(CPACK_COMPONENT_DEVELOPMENT_DESCRIPTION "The Redis lock library (reentrant and fair locks with a watchdog, its Lua
scripts built in), the simulator and the checkers: static libraries, their
headers, a CMake package (find_package(locksim), target locksim::client) and
a pkg-config file (locksim).")
include(CPack)
