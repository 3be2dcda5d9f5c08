file(REMOVE_RECURSE
  "CMakeFiles/closure_test.dir/unit/closure_test.cpp.o"
  "CMakeFiles/closure_test.dir/unit/closure_test.cpp.o.d"
  "closure_test"
  "closure_test.pdb"
  "closure_test[1]_tests.cmake"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/closure_test.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
