file(REMOVE_RECURSE
  "CMakeFiles/gen_bench.dir/gen_bench.cpp.o"
  "CMakeFiles/gen_bench.dir/gen_bench.cpp.o.d"
  "gen_bench"
  "gen_bench.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/gen_bench.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
