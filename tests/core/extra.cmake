# Per-test extras for core tests (extra libraries, data, dependencies).

# A C program on the C ABI alone (libkinetoscope.so + kinetoscope.h).
add_executable(ks_c_client ${CMAKE_CURRENT_LIST_DIR}/../capi/c_client.c)
set_target_properties(ks_c_client PROPERTIES LINKER_LANGUAGE C)
target_link_libraries(ks_c_client PRIVATE kinetoscope_shared Threads::Threads)
# The memory export test reads back the gzip files it writes.
target_link_libraries(tst_memoryexport PRIVATE ZLIB::ZLIB)
# A C program that streams to a live session (tests/scripts/test_live_record.sh).
add_executable(ks_c_stream ${CMAKE_CURRENT_LIST_DIR}/../capi/c_stream.c)
set_target_properties(ks_c_stream PROPERTIES LINKER_LANGUAGE C)
target_link_libraries(ks_c_stream PRIVATE kinetoscope_shared Threads::Threads)
