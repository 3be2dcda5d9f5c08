
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/src/solver/acyclic.cpp" "src/solver/CMakeFiles/isocheck_solver.dir/acyclic.cpp.o" "gcc" "src/solver/CMakeFiles/isocheck_solver.dir/acyclic.cpp.o.d"
  "/work/main/src/solver/check.cpp" "src/solver/CMakeFiles/isocheck_solver.dir/check.cpp.o" "gcc" "src/solver/CMakeFiles/isocheck_solver.dir/check.cpp.o.d"
  "/work/main/src/solver/witness.cpp" "src/solver/CMakeFiles/isocheck_solver.dir/witness.cpp.o" "gcc" "src/solver/CMakeFiles/isocheck_solver.dir/witness.cpp.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build/src/graph/CMakeFiles/isocheck_graph.dir/DependInfo.cmake"
  "/work/main/build/src/io/CMakeFiles/isocheck_io.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
