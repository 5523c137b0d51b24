# Per-test extras for core tests (extra libraries, data, dependencies).
# The memory export test reads back the gzip files it writes.
target_link_libraries(tst_memoryexport PRIVATE ZLIB::ZLIB)
