# Empty dependencies file for property_test.
# This may be replaced when dependencies are built.
