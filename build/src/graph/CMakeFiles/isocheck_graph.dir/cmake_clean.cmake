file(REMOVE_RECURSE
  "CMakeFiles/isocheck_graph.dir/known_graph.cpp.o"
  "CMakeFiles/isocheck_graph.dir/known_graph.cpp.o.d"
  "CMakeFiles/isocheck_graph.dir/level_graphs.cpp.o"
  "CMakeFiles/isocheck_graph.dir/level_graphs.cpp.o.d"
  "libisocheck_graph.a"
  "libisocheck_graph.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/isocheck_graph.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
