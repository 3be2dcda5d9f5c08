file(REMOVE_RECURSE
  "CMakeFiles/closure_bench.dir/closure_bench.cpp.o"
  "CMakeFiles/closure_bench.dir/closure_bench.cpp.o.d"
  "closure_bench"
  "closure_bench.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/closure_bench.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
