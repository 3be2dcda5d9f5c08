# Empty dependencies file for isocheck_gen.
# This may be replaced when dependencies are built.
