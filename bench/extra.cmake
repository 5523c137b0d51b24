# Benchmarks that need Qt (built only with the GUI): they link the UI library.
if(KINETOSCOPE_GUI)
    foreach(name bench_render bench_guiload bench_flame bench_snapshotview)
        if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/gui/${name}.cpp)
            add_executable(${name} gui/${name}.cpp)
            target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
            target_link_libraries(${name} PRIVATE kinetoscope_ui Qt6::Widgets)
            get_filename_component(_traces "${KINETOSCOPE_SHARED_DIR}/traces" ABSOLUTE)
            target_compile_definitions(${name} PRIVATE KS_SHARED_TRACES_BENCH="${_traces}")
        endif()
    endforeach()
endif()

# Synthetic trace generator (also used by the reader's bad-input tests) and the load benchmark's
# reference walkers.
add_library(ks_kinetosynth STATIC ${CMAKE_CURRENT_SOURCE_DIR}/kinetosynth.cpp)
target_include_directories(ks_kinetosynth PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_compile_features(ks_kinetosynth PUBLIC cxx_std_20)

add_executable(tracegen ${CMAKE_CURRENT_SOURCE_DIR}/tracegen.cpp)
target_link_libraries(tracegen PRIVATE ks_kinetosynth ZLIB::ZLIB)

if(TARGET bench_load)
    target_link_libraries(bench_load PRIVATE simdjson::simdjson ZLIB::ZLIB)
endif()

# The live benchmark launches a C target built from the test's source (tests/capi/c_stream.c).
add_executable(bench_live_target ${CMAKE_SOURCE_DIR}/tests/capi/c_stream.c)
set_target_properties(bench_live_target PROPERTIES LINKER_LANGUAGE C)
target_link_libraries(bench_live_target PRIVATE kinetoscope_shared Threads::Threads)
if(TARGET bench_live)
    target_compile_definitions(bench_live PRIVATE KS_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
    add_dependencies(bench_live bench_live_target kinetoscope_shared)
endif()

# bench_record's reference: libtorch's RECORD_FUNCTION under torch's profiler. Optional: without
# libtorch (or with -DCMAKE_DISABLE_FIND_PACKAGE_Torch=ON) bench_record builds and says the reference
# is missing.
if(TARGET bench_record)
    find_package(Torch QUIET)
    if(Torch_FOUND AND TARGET torch)
        # Torch's headers stay in their own translation unit (see torchref.h).
        target_sources(bench_record PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/torchref/torchref.cpp)
        target_include_directories(bench_record PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
        target_link_libraries(bench_record PRIVATE torch)
        target_compile_definitions(bench_record PRIVATE KS_HAVE_TORCH)
        message(STATUS "bench_record: libtorch reference from ${Torch_DIR}")
    else()
        message(STATUS "bench_record: libtorch not found, no torch reference")
    endif()
endif()

if(TARGET bench_overview)
    target_link_libraries(bench_overview PRIVATE ks_kinetosynth)
endif()
if(TARGET bench_diff)
    target_link_libraries(bench_diff PRIVATE ks_kinetosynth)
endif()
if(TARGET bench_calltree)
    target_link_libraries(bench_calltree PRIVATE ks_kinetosynth)
endif()

# The many-ranks benchmark and the job generator (bench/rankgen.h).
target_include_directories(bench_job PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
add_executable(jobgen ${CMAKE_CURRENT_SOURCE_DIR}/jobgen.cpp)
target_compile_features(jobgen PRIVATE cxx_std_20)

if(KINETOSCOPE_TESTS)
    # The generator's --help explains every option and exits 0 (it printed only a usage line).
    add_test(NAME tracegen_help
             COMMAND sh -c "out=$(\"$0\" --help) && for w in OUT SIZE --gzip --compact --arg-heavy --seed --level example:; do printf '%s' \"$out\" | grep -q -- \"$w\" || { echo \"missing $w\"; exit 1; }; done"
                     $<TARGET_FILE:tracegen>)
endif()
