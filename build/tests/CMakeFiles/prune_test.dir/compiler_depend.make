# Empty compiler generated dependencies file for prune_test.
# This may be replaced when dependencies are built.
