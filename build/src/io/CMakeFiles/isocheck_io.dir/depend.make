# Empty dependencies file for isocheck_io.
# This may be replaced when dependencies are built.
