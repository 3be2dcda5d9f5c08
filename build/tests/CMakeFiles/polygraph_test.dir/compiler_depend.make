# Empty compiler generated dependencies file for polygraph_test.
# This may be replaced when dependencies are built.
