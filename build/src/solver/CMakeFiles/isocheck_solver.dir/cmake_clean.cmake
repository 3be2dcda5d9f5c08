file(REMOVE_RECURSE
  "CMakeFiles/isocheck_solver.dir/acyclic.cpp.o"
  "CMakeFiles/isocheck_solver.dir/acyclic.cpp.o.d"
  "CMakeFiles/isocheck_solver.dir/cadical_backend.cpp.o"
  "CMakeFiles/isocheck_solver.dir/cadical_backend.cpp.o.d"
  "CMakeFiles/isocheck_solver.dir/check.cpp.o"
  "CMakeFiles/isocheck_solver.dir/check.cpp.o.d"
  "CMakeFiles/isocheck_solver.dir/polygraph_solver.cpp.o"
  "CMakeFiles/isocheck_solver.dir/polygraph_solver.cpp.o.d"
  "CMakeFiles/isocheck_solver.dir/prune.cpp.o"
  "CMakeFiles/isocheck_solver.dir/prune.cpp.o.d"
  "CMakeFiles/isocheck_solver.dir/sat_core.cpp.o"
  "CMakeFiles/isocheck_solver.dir/sat_core.cpp.o.d"
  "CMakeFiles/isocheck_solver.dir/sat_random.cpp.o"
  "CMakeFiles/isocheck_solver.dir/sat_random.cpp.o.d"
  "CMakeFiles/isocheck_solver.dir/sat_solver.cpp.o"
  "CMakeFiles/isocheck_solver.dir/sat_solver.cpp.o.d"
  "CMakeFiles/isocheck_solver.dir/subproblems.cpp.o"
  "CMakeFiles/isocheck_solver.dir/subproblems.cpp.o.d"
  "CMakeFiles/isocheck_solver.dir/witness.cpp.o"
  "CMakeFiles/isocheck_solver.dir/witness.cpp.o.d"
  "libisocheck_solver.a"
  "libisocheck_solver.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/isocheck_solver.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
