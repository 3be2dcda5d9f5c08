# Empty dependencies file for verify_bench.
# This may be replaced when dependencies are built.
