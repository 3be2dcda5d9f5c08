# Empty dependencies file for solver_bench.
# This may be replaced when dependencies are built.
