file(REMOVE_RECURSE
  "CMakeFiles/sink_test.dir/unit/sink_test.cpp.o"
  "CMakeFiles/sink_test.dir/unit/sink_test.cpp.o.d"
  "sink_test"
  "sink_test.pdb"
  "sink_test[1]_tests.cmake"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/sink_test.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
