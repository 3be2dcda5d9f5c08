file(REMOVE_RECURSE
  "../../isocheck"
  "../../isocheck.pdb"
  "CMakeFiles/isocheck.dir/cmd_convert.cpp.o"
  "CMakeFiles/isocheck.dir/cmd_convert.cpp.o.d"
  "CMakeFiles/isocheck.dir/cmd_info.cpp.o"
  "CMakeFiles/isocheck.dir/cmd_info.cpp.o.d"
  "CMakeFiles/isocheck.dir/cmd_verify.cpp.o"
  "CMakeFiles/isocheck.dir/cmd_verify.cpp.o.d"
  "CMakeFiles/isocheck.dir/limits.cpp.o"
  "CMakeFiles/isocheck.dir/limits.cpp.o.d"
  "CMakeFiles/isocheck.dir/main.cpp.o"
  "CMakeFiles/isocheck.dir/main.cpp.o.d"
  "CMakeFiles/isocheck.dir/progress.cpp.o"
  "CMakeFiles/isocheck.dir/progress.cpp.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/isocheck.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
