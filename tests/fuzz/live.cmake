# libFuzzer targets for the live side (clang only): the frame decoder and ingest, and the merge of
# torch.profiler window files. include()d from tests/fuzz/CMakeLists.txt when KINETOSCOPE_FUZZ is
# on; core itself should be built with -fsanitize=fuzzer-no-link,address,undefined so that the
# fuzzer sees its coverage. Seeds: tests/fuzz/corpus/live/{frames,window}.
foreach(name fuzz_live_frames fuzz_live_window)
    add_executable(${name} ${CMAKE_CURRENT_LIST_DIR}/${name}.cpp)
    target_compile_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_libraries(${name} PRIVATE kinetoscope_core)
endforeach()
