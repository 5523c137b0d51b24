# Live side: the frame decoder and ingest (fuzz_live_frames), and the merge of torch.profiler window
# files (fuzz_live_window). Seeds: tests/fuzz/corpus/live_frames, corpus/live_window.
kinetoscope_fuzz_target(fuzz_live_frames ks_live)
kinetoscope_fuzz_target(fuzz_live_window ks_live)
