file(REMOVE_RECURSE
  "CMakeFiles/isocheck_oracle.dir/oracle/oracle.cpp.o"
  "CMakeFiles/isocheck_oracle.dir/oracle/oracle.cpp.o.d"
  "CMakeFiles/isocheck_oracle.dir/oracle/random_history.cpp.o"
  "CMakeFiles/isocheck_oracle.dir/oracle/random_history.cpp.o.d"
  "libisocheck_oracle.a"
  "libisocheck_oracle.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/isocheck_oracle.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
