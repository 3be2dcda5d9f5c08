file(REMOVE_RECURSE
  "CMakeFiles/isocheck_closure.dir/cpu_closure.cpp.o"
  "CMakeFiles/isocheck_closure.dir/cpu_closure.cpp.o.d"
  "CMakeFiles/isocheck_closure.dir/graph_algos.cpp.o"
  "CMakeFiles/isocheck_closure.dir/graph_algos.cpp.o.d"
  "libisocheck_closure.a"
  "libisocheck_closure.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/isocheck_closure.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
