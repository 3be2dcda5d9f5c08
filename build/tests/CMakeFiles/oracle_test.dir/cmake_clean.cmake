file(REMOVE_RECURSE
  "CMakeFiles/oracle_test.dir/unit/oracle_test.cpp.o"
  "CMakeFiles/oracle_test.dir/unit/oracle_test.cpp.o.d"
  "oracle_test"
  "oracle_test.pdb"
  "oracle_test[1]_tests.cmake"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/oracle_test.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
