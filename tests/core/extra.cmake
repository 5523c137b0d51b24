# Per-test extras for core tests (extra libraries, data, dependencies).

# A C program on the C ABI alone (libkinetoscope.so + kinetoscope.h).
add_executable(ks_c_client ${CMAKE_CURRENT_LIST_DIR}/../capi/c_client.c)
set_target_properties(ks_c_client PROPERTIES LINKER_LANGUAGE C)
target_link_libraries(ks_c_client PRIVATE kinetoscope_shared Threads::Threads)
# Its with_stack check finds its own function names through dladdr.
set_target_properties(ks_c_client PROPERTIES ENABLE_EXPORTS ON)
# with_stack names the test's own functions through dladdr, which sees only exported symbols:
# link it with -rdynamic.
set_target_properties(tst_stackcapture PROPERTIES ENABLE_EXPORTS ON)
# The memory export test reads back the gzip files it writes.
target_link_libraries(tst_memoryexport PRIVATE ZLIB::ZLIB)
# The pickle reader's stack limit is checked on gzipped pickles.
target_link_libraries(tst_picklereader PRIVATE ZLIB::ZLIB)
# Reader tests generate synthetic traces with the benchmark generator and gzip them with zlib.
foreach(t tst_reader_badinput tst_reader_events tst_reader_hardening)
    if(TARGET ${t})
        target_sources(${t} PRIVATE ${CMAKE_SOURCE_DIR}/bench/kinetosynth.cpp)
        target_include_directories(${t} PRIVATE ${CMAKE_SOURCE_DIR}/bench)
        target_link_libraries(${t} PRIVATE ZLIB::ZLIB)
    endif()
endforeach()

# GPU collector tests compile against the same CUPTI / NVTX / Level Zero headers as the core.
foreach(t tst_cupticollector tst_cuptidecoder tst_cuptiwheel tst_zecollector tst_gpuabsent)
    if(TARGET ${t})
        kinetoscope_collector_flags(${t})
    endif()
endforeach()
# A library that stands for a pip torch's in a fake site-packages (tst_cuptiwheel).
add_library(ks_wheelstub MODULE ${CMAKE_CURRENT_LIST_DIR}/../fixtures/wheelstub/wheelstub.c)
target_compile_definitions(tst_cuptiwheel PRIVATE KS_WHEEL_STUB="$<TARGET_FILE:ks_wheelstub>")
add_dependencies(tst_cuptiwheel ks_wheelstub)

# Level Zero: our fake GPU driver for the real loader (ZE_ENABLE_ALT_DRIVERS); the test links the
# loader itself because it plays the application.
if(KS_WITH_LEVEL_ZERO AND KS_ZE_LOADER_LIBRARY AND TARGET tst_zecollector)
    add_library(ks_zefake MODULE ${CMAKE_CURRENT_LIST_DIR}/../fixtures/zefake/zefakedriver.cpp)
    target_include_directories(ks_zefake SYSTEM PRIVATE ${KS_ZE_INCLUDE_DIR})
    target_include_directories(ks_zefake PRIVATE ${CMAKE_CURRENT_LIST_DIR}/../fixtures/zefake)
    target_link_libraries(tst_zecollector PRIVATE ${KS_ZE_LOADER_LIBRARY})
    target_compile_definitions(tst_zecollector PRIVATE KS_ZE_FAKE_DRIVER="$<TARGET_FILE:ks_zefake>")
    add_dependencies(tst_zecollector ks_zefake)
endif()

# Programs the injection-library test runs (tests/scripts/test_inject.sh).
add_executable(ks_inject_probe ${CMAKE_CURRENT_LIST_DIR}/../inject/inject_probe.c)
target_link_libraries(ks_inject_probe PRIVATE ${CMAKE_DL_LIBS})
add_executable(ks_itt_client ${CMAKE_CURRENT_LIST_DIR}/../inject/itt_client.c)
target_link_libraries(ks_itt_client PRIVATE ${CMAKE_DL_LIBS})
add_dependencies(ks_inject_probe kinetoscope_inject)
if(KS_WITH_NVTX)
    add_executable(ks_nvtx_client ${CMAKE_CURRENT_LIST_DIR}/../inject/nvtx_client.c)
    target_include_directories(ks_nvtx_client SYSTEM PRIVATE ${KS_NVTX_INCLUDE_DIR})
    target_link_libraries(ks_nvtx_client PRIVATE ${CMAKE_DL_LIBS} Threads::Threads)
endif()
# A C program that streams to a live session (tests/scripts/test_live_record.sh).
add_executable(ks_c_stream ${CMAKE_CURRENT_LIST_DIR}/../capi/c_stream.c)
set_target_properties(ks_c_stream PROPERTIES LINKER_LANGUAGE C)
target_link_libraries(ks_c_stream PRIVATE kinetoscope_shared Threads::Threads)

# A plain Level Zero program for the live injection test (tests/scripts/test_inject_live.sh).
if(KS_WITH_LEVEL_ZERO AND KS_ZE_LOADER_LIBRARY AND TARGET ks_zefake)
    add_executable(ks_ze_client ${CMAKE_CURRENT_LIST_DIR}/../inject/ze_client.c)
    set_target_properties(ks_ze_client PROPERTIES LINKER_LANGUAGE C)
    target_include_directories(ks_ze_client SYSTEM PRIVATE ${KS_ZE_INCLUDE_DIR})
    target_link_libraries(ks_ze_client PRIVATE ${KS_ZE_LOADER_LIBRARY})
    add_dependencies(ks_ze_client ks_zefake kinetoscope_inject)
endif()

# The nvprof reader test writes its databases with SQLite.
if(TARGET tst_nvprofreader)
    find_package(SQLite3 REQUIRED)
    target_link_libraries(tst_nvprofreader PRIVATE SQLite::SQLite3)
endif()
# The compare tests read shared traces (gzip) to edit them.
target_link_libraries(tst_compare PRIVATE ZLIB::ZLIB)
target_link_libraries(tst_comparesteps PRIVATE ZLIB::ZLIB)
# The many-ranks tests generate their jobs with the benchmark's rank generator (header only) and
# build jobs from copies of a shared trace (gzip).
target_link_libraries(tst_ranks PRIVATE ZLIB::ZLIB)
target_include_directories(tst_ranks PRIVATE ${CMAKE_SOURCE_DIR}/bench)
