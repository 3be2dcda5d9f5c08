# Empty compiler generated dependencies file for sat_test.
# This may be replaced when dependencies are built.
