# Empty dependencies file for isocheck_solver.
# This may be replaced when dependencies are built.
