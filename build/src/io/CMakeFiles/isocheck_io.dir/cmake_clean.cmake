file(REMOVE_RECURSE
  "CMakeFiles/isocheck_io.dir/hdf5.cpp.o"
  "CMakeFiles/isocheck_io.dir/hdf5.cpp.o.d"
  "CMakeFiles/isocheck_io.dir/history.cpp.o"
  "CMakeFiles/isocheck_io.dir/history.cpp.o.d"
  "CMakeFiles/isocheck_io.dir/jsonl.cpp.o"
  "CMakeFiles/isocheck_io.dir/jsonl.cpp.o.d"
  "CMakeFiles/isocheck_io.dir/jsonl_stream.cpp.o"
  "CMakeFiles/isocheck_io.dir/jsonl_stream.cpp.o.d"
  "CMakeFiles/isocheck_io.dir/load.cpp.o"
  "CMakeFiles/isocheck_io.dir/load.cpp.o.d"
  "CMakeFiles/isocheck_io.dir/sink.cpp.o"
  "CMakeFiles/isocheck_io.dir/sink.cpp.o.d"
  "libisocheck_io.a"
  "libisocheck_io.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/isocheck_io.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
