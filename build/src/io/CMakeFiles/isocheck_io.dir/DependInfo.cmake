
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/src/io/hdf5.cpp" "src/io/CMakeFiles/isocheck_io.dir/hdf5.cpp.o" "gcc" "src/io/CMakeFiles/isocheck_io.dir/hdf5.cpp.o.d"
  "/work/main/src/io/history.cpp" "src/io/CMakeFiles/isocheck_io.dir/history.cpp.o" "gcc" "src/io/CMakeFiles/isocheck_io.dir/history.cpp.o.d"
  "/work/main/src/io/jsonl.cpp" "src/io/CMakeFiles/isocheck_io.dir/jsonl.cpp.o" "gcc" "src/io/CMakeFiles/isocheck_io.dir/jsonl.cpp.o.d"
  "/work/main/src/io/jsonl_stream.cpp" "src/io/CMakeFiles/isocheck_io.dir/jsonl_stream.cpp.o" "gcc" "src/io/CMakeFiles/isocheck_io.dir/jsonl_stream.cpp.o.d"
  "/work/main/src/io/load.cpp" "src/io/CMakeFiles/isocheck_io.dir/load.cpp.o" "gcc" "src/io/CMakeFiles/isocheck_io.dir/load.cpp.o.d"
  "/work/main/src/io/sink.cpp" "src/io/CMakeFiles/isocheck_io.dir/sink.cpp.o" "gcc" "src/io/CMakeFiles/isocheck_io.dir/sink.cpp.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
