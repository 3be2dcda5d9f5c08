# Empty dependencies file for hdf5_test.
# This may be replaced when dependencies are built.
