# CMake generated Testfile for 
# Source directory: /work/main/tests
# Build directory: /work/main/build/tests
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
include("/work/main/build/tests/check_test[1]_include.cmake")
include("/work/main/build/tests/examples_test[1]_include.cmake")
include("/work/main/build/tests/gen_test[1]_include.cmake")
include("/work/main/build/tests/hdf5_test[1]_include.cmake")
include("/work/main/build/tests/oracle_test[1]_include.cmake")
include("/work/main/build/tests/property_test[1]_include.cmake")
include("/work/main/build/tests/sink_test[1]_include.cmake")
add_test([=[cli.hdf5_h5dump]=] "bash" "/work/main/tests/cli/hdf5_h5dump.sh" "/work/main/build/isocheck" "/work/main")
set_tests_properties([=[cli.hdf5_h5dump]=] PROPERTIES  _BACKTRACE_TRIPLES "/work/main/tests/CMakeLists.txt;26;add_test;/work/main/tests/CMakeLists.txt;0;")
add_test([=[cli.verify_cli]=] "bash" "/work/main/tests/cli/verify_cli.sh" "/work/main/build/isocheck" "/work/main")
set_tests_properties([=[cli.verify_cli]=] PROPERTIES  _BACKTRACE_TRIPLES "/work/main/tests/CMakeLists.txt;26;add_test;/work/main/tests/CMakeLists.txt;0;")
