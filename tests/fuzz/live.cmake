# Live side: the frame decoder and ingest (fuzz_live_frames), the merge of torch.profiler window
# files (fuzz_live_window) and the paths naming them (fuzz_window_file). Seeds:
# tests/fuzz/corpus/live_frames, corpus/live_window, corpus/window_file.
kinetoscope_fuzz_target(fuzz_live_frames ks_live)
kinetoscope_fuzz_target(fuzz_live_window ks_live)
# fuzz_window_file: the path a Window frame names, against the session's window directory.
kinetoscope_fuzz_target(fuzz_window_file ks_live)
