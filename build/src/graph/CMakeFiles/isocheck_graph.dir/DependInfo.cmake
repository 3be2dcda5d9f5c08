
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/src/graph/known_graph.cpp" "src/graph/CMakeFiles/isocheck_graph.dir/known_graph.cpp.o" "gcc" "src/graph/CMakeFiles/isocheck_graph.dir/known_graph.cpp.o.d"
  "/work/main/src/graph/level_graphs.cpp" "src/graph/CMakeFiles/isocheck_graph.dir/level_graphs.cpp.o" "gcc" "src/graph/CMakeFiles/isocheck_graph.dir/level_graphs.cpp.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build/src/io/CMakeFiles/isocheck_io.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
