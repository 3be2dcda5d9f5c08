# CMake generated Testfile for 
# Source directory: /work/main
# Build directory: /work/main/build
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
subdirs("src/io")
subdirs("src/partition")
subdirs("src/graph")
subdirs("src/closure")
subdirs("src/solver")
subdirs("src/report")
subdirs("src/gen")
subdirs("src/cli")
subdirs("tests")
subdirs("bench")
