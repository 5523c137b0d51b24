# Per-test extras for core tests (extra libraries, data, dependencies).
