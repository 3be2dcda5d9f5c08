# Empty dependencies file for gen_bench.
# This may be replaced when dependencies are built.
