# Per-test extras for core tests (extra libraries, data, dependencies).

# Reader tests generate synthetic traces with the benchmark generator and gzip them with zlib.
foreach(t tst_reader_badinput tst_reader_events)
    if(TARGET ${t})
        target_sources(${t} PRIVATE ${CMAKE_SOURCE_DIR}/bench/kinetosynth.cpp)
        target_include_directories(${t} PRIVATE ${CMAKE_SOURCE_DIR}/bench)
        target_link_libraries(${t} PRIVATE ZLIB::ZLIB)
    endif()
endforeach()
