# Empty dependencies file for oracle_test.
# This may be replaced when dependencies are built.
