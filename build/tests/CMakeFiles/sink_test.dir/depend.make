# Empty dependencies file for sink_test.
# This may be replaced when dependencies are built.
