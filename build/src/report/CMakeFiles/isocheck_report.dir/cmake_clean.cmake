file(REMOVE_RECURSE
  "CMakeFiles/isocheck_report.dir/report.cpp.o"
  "CMakeFiles/isocheck_report.dir/report.cpp.o.d"
  "libisocheck_report.a"
  "libisocheck_report.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/isocheck_report.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
