# Empty dependencies file for examples_test.
# This may be replaced when dependencies are built.
