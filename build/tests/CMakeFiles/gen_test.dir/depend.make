# Empty dependencies file for gen_test.
# This may be replaced when dependencies are built.
