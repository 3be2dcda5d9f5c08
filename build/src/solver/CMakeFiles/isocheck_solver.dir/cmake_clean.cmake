file(REMOVE_RECURSE
  "CMakeFiles/isocheck_solver.dir/acyclic.cpp.o"
  "CMakeFiles/isocheck_solver.dir/acyclic.cpp.o.d"
  "CMakeFiles/isocheck_solver.dir/check.cpp.o"
  "CMakeFiles/isocheck_solver.dir/check.cpp.o.d"
  "CMakeFiles/isocheck_solver.dir/witness.cpp.o"
  "CMakeFiles/isocheck_solver.dir/witness.cpp.o.d"
  "libisocheck_solver.a"
  "libisocheck_solver.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/isocheck_solver.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
