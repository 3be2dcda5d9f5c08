file(REMOVE_RECURSE
  "CMakeFiles/isocheck_gen.dir/gen.cpp.o"
  "CMakeFiles/isocheck_gen.dir/gen.cpp.o.d"
  "libisocheck_gen.a"
  "libisocheck_gen.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/isocheck_gen.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
