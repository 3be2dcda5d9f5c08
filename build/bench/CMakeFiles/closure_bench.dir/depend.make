# Empty dependencies file for closure_bench.
# This may be replaced when dependencies are built.
