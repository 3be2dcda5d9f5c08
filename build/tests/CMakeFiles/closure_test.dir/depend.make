# Empty dependencies file for closure_test.
# This may be replaced when dependencies are built.
