file(REMOVE_RECURSE
  "CMakeFiles/solver_bench.dir/solver_bench.cpp.o"
  "CMakeFiles/solver_bench.dir/solver_bench.cpp.o.d"
  "solver_bench"
  "solver_bench.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/solver_bench.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
