# The screenshot test runs the application binary.
if(TARGET tst_screenshot)
    add_dependencies(tst_screenshot kinetoscope)
endif()
# The live-session test launches real scripts through libkinetoscope.so.
if(TARGET tst_livesession)
    add_dependencies(tst_livesession kinetoscope_shared)
endif()
# The rank overview test generates its job with the benchmark's rank generator (header only).
if(TARGET tst_rankoverview)
    target_include_directories(tst_rankoverview PRIVATE ${CMAKE_SOURCE_DIR}/bench)
endif()
# The renderer test paints the benchmark's generated trace (bench/generatedtrace.h, header only).
if(TARGET tst_timelinerender)
    target_include_directories(tst_timelinerender PRIVATE ${CMAKE_SOURCE_DIR}/bench)
endif()
# The snapshot window's test compares with `kinetoscope snapshot --json`.
if(TARGET tst_snapshotview)
    add_dependencies(tst_snapshotview kinetoscope)
endif()
