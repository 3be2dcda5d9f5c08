file(REMOVE_RECURSE
  "CMakeFiles/verify_bench.dir/verify_bench.cpp.o"
  "CMakeFiles/verify_bench.dir/verify_bench.cpp.o.d"
  "verify_bench"
  "verify_bench.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/verify_bench.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
