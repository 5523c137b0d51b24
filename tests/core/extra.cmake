# Per-test extras for core tests (extra libraries, data, dependencies).

# A C program on the C ABI alone (libkinetoscope.so + kinetoscope.h).
add_executable(ks_c_client ${CMAKE_CURRENT_LIST_DIR}/../capi/c_client.c)
set_target_properties(ks_c_client PROPERTIES LINKER_LANGUAGE C)
target_link_libraries(ks_c_client PRIVATE kinetoscope_shared Threads::Threads)
# The memory export test reads back the gzip files it writes.
target_link_libraries(tst_memoryexport PRIVATE ZLIB::ZLIB)
# Reader tests generate synthetic traces with the benchmark generator and gzip them with zlib.
foreach(t tst_reader_badinput tst_reader_events)
    if(TARGET ${t})
        target_sources(${t} PRIVATE ${CMAKE_SOURCE_DIR}/bench/kinetosynth.cpp)
        target_include_directories(${t} PRIVATE ${CMAKE_SOURCE_DIR}/bench)
        target_link_libraries(${t} PRIVATE ZLIB::ZLIB)
    endif()
endforeach()
