
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/src/cli/cmd_convert.cpp" "src/cli/CMakeFiles/isocheck.dir/cmd_convert.cpp.o" "gcc" "src/cli/CMakeFiles/isocheck.dir/cmd_convert.cpp.o.d"
  "/work/main/src/cli/cmd_info.cpp" "src/cli/CMakeFiles/isocheck.dir/cmd_info.cpp.o" "gcc" "src/cli/CMakeFiles/isocheck.dir/cmd_info.cpp.o.d"
  "/work/main/src/cli/cmd_verify.cpp" "src/cli/CMakeFiles/isocheck.dir/cmd_verify.cpp.o" "gcc" "src/cli/CMakeFiles/isocheck.dir/cmd_verify.cpp.o.d"
  "/work/main/src/cli/limits.cpp" "src/cli/CMakeFiles/isocheck.dir/limits.cpp.o" "gcc" "src/cli/CMakeFiles/isocheck.dir/limits.cpp.o.d"
  "/work/main/src/cli/main.cpp" "src/cli/CMakeFiles/isocheck.dir/main.cpp.o" "gcc" "src/cli/CMakeFiles/isocheck.dir/main.cpp.o.d"
  "/work/main/src/cli/progress.cpp" "src/cli/CMakeFiles/isocheck.dir/progress.cpp.o" "gcc" "src/cli/CMakeFiles/isocheck.dir/progress.cpp.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build/src/report/CMakeFiles/isocheck_report.dir/DependInfo.cmake"
  "/work/main/build/src/solver/CMakeFiles/isocheck_solver.dir/DependInfo.cmake"
  "/work/main/build/src/graph/CMakeFiles/isocheck_graph.dir/DependInfo.cmake"
  "/work/main/build/src/io/CMakeFiles/isocheck_io.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
