# Fuzz targets for the nvprof and execution-trace readers and for .kjob files; include()d from
# tests/fuzz/CMakeLists.txt (after kinetoscope_fuzz_target is defined). Seeds in corpus/nvprof/,
# corpus/et/ and corpus/kjob/.
# fuzz_nvprof: nvprof databases (SQLite) through loadTraceData and the nvprof summary.
kinetoscope_fuzz_target(fuzz_nvprof ks_analysis ks_io)
# fuzz_et: execution traces: the reader, the op graph's producer/consumer queries, the op view and
# the links to it.
kinetoscope_fuzz_target(fuzz_et ks_analysis ks_io)
# fuzz_kjob: .kjob job files and rank summaries, read, written back, and the job views on them.
kinetoscope_fuzz_target(fuzz_kjob ks_analysis ks_io)
# fuzz_snapshot: CUDA memory snapshot pickles through the safe pickle reader, the snapshot builder and
# every device's timeline.
kinetoscope_fuzz_target(fuzz_snapshot ks_analysis ks_io)
