
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/src/closure/cpu_closure.cpp" "src/closure/CMakeFiles/isocheck_closure.dir/cpu_closure.cpp.o" "gcc" "src/closure/CMakeFiles/isocheck_closure.dir/cpu_closure.cpp.o.d"
  "/work/main/src/closure/graph_algos.cpp" "src/closure/CMakeFiles/isocheck_closure.dir/graph_algos.cpp.o" "gcc" "src/closure/CMakeFiles/isocheck_closure.dir/graph_algos.cpp.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build/src/graph/CMakeFiles/isocheck_graph.dir/DependInfo.cmake"
  "/work/main/build/src/io/CMakeFiles/isocheck_io.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
