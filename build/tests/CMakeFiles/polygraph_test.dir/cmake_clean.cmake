file(REMOVE_RECURSE
  "CMakeFiles/polygraph_test.dir/unit/polygraph_test.cpp.o"
  "CMakeFiles/polygraph_test.dir/unit/polygraph_test.cpp.o.d"
  "polygraph_test"
  "polygraph_test.pdb"
  "polygraph_test[1]_tests.cmake"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/polygraph_test.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
