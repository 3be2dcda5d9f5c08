file(REMOVE_RECURSE
  "CMakeFiles/examples_test.dir/unit/examples_test.cpp.o"
  "CMakeFiles/examples_test.dir/unit/examples_test.cpp.o.d"
  "examples_test"
  "examples_test.pdb"
  "examples_test[1]_tests.cmake"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/examples_test.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
