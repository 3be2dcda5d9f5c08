# Empty dependencies file for check_test.
# This may be replaced when dependencies are built.
