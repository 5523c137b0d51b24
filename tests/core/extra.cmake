# Per-test extras for core tests (extra libraries, data, dependencies).

# A C program on the C ABI alone (libkinetoscope.so + kinetoscope.h).
add_executable(ks_c_client ${CMAKE_CURRENT_LIST_DIR}/../capi/c_client.c)
set_target_properties(ks_c_client PROPERTIES LINKER_LANGUAGE C)
target_link_libraries(ks_c_client PRIVATE kinetoscope_shared Threads::Threads)
# The memory export test reads back the gzip files it writes.
target_link_libraries(tst_memoryexport PRIVATE ZLIB::ZLIB)

# GPU collector tests compile against the same CUPTI / NVTX / Level Zero headers as the core.
foreach(t tst_cupticollector tst_cuptidecoder tst_zecollector tst_gpuabsent)
    if(TARGET ${t})
        kinetoscope_collector_flags(${t})
    endif()
endforeach()
