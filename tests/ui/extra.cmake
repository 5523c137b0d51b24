# The screenshot test runs the application binary.
if(TARGET tst_screenshot)
    add_dependencies(tst_screenshot kinetoscope)
endif()
